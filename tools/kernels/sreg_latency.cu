// Special-register reads (tools/sreg_latency.py): one warp reads a special register and runs 256 steps
// of `x = x * 3 + v` on it.  ptxas reads the register once (S2R), after the first clock read, except
// %tid.x, which the kernel's entry has read already: the spans' differences from k_sr_tid_x are the
// S2R's latency.  clk = [start, end].
#define STEPS 256
__device__ __forceinline__ unsigned sr_laneid() { unsigned v; asm volatile("mov.u32 %0, %%laneid;" : "=r"(v)); return v; }
__device__ __forceinline__ unsigned sr_tid_x() { unsigned v; asm volatile("mov.u32 %0, %%tid.x;" : "=r"(v)); return v; }
__device__ __forceinline__ unsigned sr_ctaid_x() { unsigned v; asm volatile("mov.u32 %0, %%ctaid.x;" : "=r"(v)); return v; }

#define SREG_LOOP(READ)                                                        \
    unsigned x = threadIdx.x | 1;                                              \
    long long t0 = clock64();                                                  \
    _Pragma("unroll 1") for (int it = 0; it < STEPS / 8; it++) {               \
        _Pragma("unroll") for (int j = 0; j < 8; j++) x = x * 3 + READ;        \
    }                                                                          \
    long long t1 = clock64();                                                  \
    out[threadIdx.x] = x;                                                      \
    if (threadIdx.x == 0) { clk[0] = t0; clk[1] = t1; }

extern "C" __global__ void k_sr_laneid(long long* clk, unsigned* out) { SREG_LOOP(sr_laneid()) }
extern "C" __global__ void k_sr_tid_x(long long* clk, unsigned* out) { SREG_LOOP(sr_tid_x()) }
extern "C" __global__ void k_sr_ctaid_x(long long* clk, unsigned* out) { SREG_LOOP(sr_ctaid_x()) }

// The same after four global loads issued between the clock read and the S2R (their data is used
// only after the second clock read): does a per-thread register read (counted in the LSU pipe)
// wait behind them?
#define SREG_AFTER_LOADS(READ)                                                                     \
    unsigned x = threadIdx.x | 1, a, b, c, d;                                                      \
    const unsigned* p = in + threadIdx.x;                                                          \
    long long t0 = clock64();                                                                      \
    asm volatile("ld.global.cg.u32 %0, [%4];\n\tld.global.cg.u32 %1, [%4+128];\n\t"                \
                 "ld.global.cg.u32 %2, [%4+256];\n\tld.global.cg.u32 %3, [%4+384];"                \
                 : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "l"(p));                                  \
    unsigned v = READ;                                                                             \
    _Pragma("unroll 1") for (int it = 0; it < STEPS / 8; it++) {                                   \
        _Pragma("unroll") for (int j = 0; j < 8; j++) x = x * 3 + v;                               \
    }                                                                                              \
    long long t1 = clock64();                                                                      \
    out[threadIdx.x] = x + a + b + c + d;                                                          \
    if (threadIdx.x == 0) { clk[0] = t0; clk[1] = t1; }

extern "C" __global__ void k_loads_sr_laneid(long long* clk, unsigned* out, const unsigned* in) {
    SREG_AFTER_LOADS(sr_laneid())
}
extern "C" __global__ void k_loads_sr_tid_x(long long* clk, unsigned* out, const unsigned* in) {
    SREG_AFTER_LOADS(sr_tid_x())
}

// Two reads in the window (the second waits for the first?), and a throughput kernel: every warp of
// one block reads 14 different special registers once, between two clock reads.
extern "C" __global__ void k_sr_pair(long long* clk, unsigned* out) { SREG_LOOP(sr_laneid() + sr_ctaid_x()) }

#define SR(name) ({ unsigned v_; asm volatile("mov.u32 %0, %%" #name ";" : "=r"(v_)); v_; })
extern "C" __global__ void __launch_bounds__(1024) k_sr14(long long* clk, unsigned* out) {
    long long t0 = clock64();
    unsigned s = SR(laneid) ^ SR(tid.y) ^ SR(tid.z) ^ SR(ctaid.x) ^ SR(ctaid.y) ^ SR(ctaid.z) ^ SR(warpid)
               ^ SR(smid) ^ SR(nsmid) ^ SR(lanemask_eq) ^ SR(lanemask_lt) ^ SR(lanemask_le) ^ SR(lanemask_gt)
               ^ SR(lanemask_ge);
    long long t1 = clock64() + (s == 0x9e3779b9u);   // t1 after the reads: it waits for their sum
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
    if ((threadIdx.x & 31) == 0) { clk[2 * (threadIdx.x / 32)] = t0; clk[2 * (threadIdx.x / 32) + 1] = t1; }
}
