// Do memory instructions whose guard predicate is false take the LD/ST pipe (tools/pred_off.py)?
// Every running warp (bit w of `active`; warp w sits on sub-partition w % 4) issues 64 iterations
// of 8 independent LDS.32 (or STS.32, or LDG.E of an L1-resident line) under a predicate that is
// true for every lane (`on` != 0) or false for every lane (`on` == 0): ptxas keeps the guard, so
// the instructions issue either way.  Lane 0 of each running warp writes clk[2 w], clk[2 w + 1].
#define ITERS 64
#define WARPS 16

template <int KIND>   // 0 LDS, 1 STS, 2 LDG
__device__ __forceinline__ void guarded_loop(long long* clk, unsigned* out, const unsigned* g, unsigned active, int on) {
    __shared__ unsigned s[8 * 512];
    const unsigned w = threadIdx.x / 32, lane = threadIdx.x & 31;
    for (int i = threadIdx.x; i < 8 * 512; i += blockDim.x) s[i] = i;
    __syncthreads();
    if (!((active >> w) & 1)) return;
    const unsigned a = (unsigned)__cvta_generic_to_shared(s) + 4 * lane;
    const unsigned* q = g + lane;
    unsigned acc = threadIdx.x;
    const long long t0 = clock64();
#pragma unroll 1
    for (int it = 0; it < ITERS; it++) {
#pragma unroll
        for (int j = 0; j < 8; j++) {
            unsigned x = 0;
            if (KIND == 0)
                asm volatile("{ .reg .pred p; setp.ne.s32 p, %2, 0; @p ld.shared.u32 %0, [%1]; }"
                             : "+r"(x) : "r"(a + j * 2048), "r"(on) : "memory");
            else if (KIND == 1)
                asm volatile("{ .reg .pred p; setp.ne.s32 p, %2, 0; @p st.shared.u32 [%0], %1; }"
                             :: "r"(a + j * 2048), "r"(acc + it), "r"(on) : "memory");
            else
                asm volatile("{ .reg .pred p; setp.ne.s32 p, %2, 0; @p ld.global.ca.u32 %0, [%1]; }"
                             : "+r"(x) : "l"(q + j * 32), "r"(on) : "memory");
            acc ^= x;
        }
    }
    const long long t1 = clock64();
    out[threadIdx.x] = acc;
    if (lane == 0) { clk[2 * w] = t0; clk[2 * w + 1] = t1; }
}

extern "C" __global__ void k_lds(long long* clk, unsigned* out, const unsigned* g, unsigned active, int on) { guarded_loop<0>(clk, out, g, active, on); }
extern "C" __global__ void k_sts(long long* clk, unsigned* out, const unsigned* g, unsigned active, int on) { guarded_loop<1>(clk, out, g, active, on); }
extern "C" __global__ void k_ldg(long long* clk, unsigned* out, const unsigned* g, unsigned active, int on) { guarded_loop<2>(clk, out, g, active, on); }
