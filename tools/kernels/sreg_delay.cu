// How long an S2R takes as a function of when the warp issues it (tools/sreg_latency.py).
// One warp spins `spin` cycles after its first clock read, then reads the clock, a special
// register (or, in k_sd_none, a value it holds already), adds 1 to it (in-order issue: the next
// clock read waits for the add, so for the read's result), and reads the clock again.
// k_sd_second reads SR_TID.X first and uses it for the spin's bound, so its timed SR_LANEID
// read is the warp's second.  The store index is the timed lane-id read (or, where the timed
// read is another register, a lane-id read after the window).  clk = [start, t0, t1].
__device__ __forceinline__ unsigned rd_laneid() { unsigned v; asm volatile("mov.u32 %0, %%laneid;" : "=r"(v)); return v; }
__device__ __forceinline__ unsigned rd_tid_x() { unsigned v; asm volatile("mov.u32 %0, %%tid.x;" : "=r"(v)); return v; }
__device__ __forceinline__ unsigned rd_ctaid_x() { unsigned v; asm volatile("mov.u32 %0, %%ctaid.x;" : "=r"(v)); return v; }
__device__ __forceinline__ unsigned rd_none(unsigned held) { unsigned v; asm volatile("mov.u32 %0, %1;" : "=r"(v) : "r"(held)); return v; }
__device__ __forceinline__ long long clk64() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)); return t; }
__device__ __forceinline__ unsigned use(unsigned v) { unsigned r; asm volatile("add.u32 %0, %1, 1;" : "=r"(r) : "r"(v)); return r; }

#define SREG_DELAY(BOUND, READ, LANE)                                               \
    long long s = clk64();                                                          \
    long long bound = BOUND;                                                        \
    while (clk64() - s < bound) { }                                                 \
    long long t0 = clk64();                                                         \
    unsigned a = use(READ);                                                         \
    long long t1 = clk64();                                                         \
    unsigned lane = LANE;                                                           \
    out[lane & 31] = a;                                                             \
    if ((lane & 31) == 0) { clk[0] = s; clk[1] = t0; clk[2] = t1; }

extern "C" __global__ void k_sd_laneid(long long* clk, unsigned* out, int spin) { SREG_DELAY(spin, rd_laneid(), a - 1) }
extern "C" __global__ void k_sd_ctaid_x(long long* clk, unsigned* out, int spin) { SREG_DELAY(spin, rd_ctaid_x(), rd_laneid()) }
extern "C" __global__ void k_sd_none(long long* clk, unsigned* out, int spin) { SREG_DELAY(spin, rd_none((unsigned)spin), rd_laneid()) }
extern "C" __global__ void k_sd_second(long long* clk, unsigned* out, int spin) {
    SREG_DELAY(spin - (rd_tid_x() == 0xffffffffu), rd_laneid(), a - 1)
}
