// Which of an SM's blocks finish first (tools/block_order.py): a grid of 132 x B blocks, every warp
// running the same loop of FMULs, lane 0 of global warp w writing clk[4 w .. 4 w + 3]: the clock
// before and after its loop, its SM (%smid) and its block.
__device__ __forceinline__ long long clock_now() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)); return t; }
__device__ __forceinline__ unsigned sm_id() { unsigned s; asm volatile("mov.u32 %0, %%smid;" : "=r"(s)); return s; }

#define BLOCK_ORDER(NAME, BODY)                                                                         \
    extern "C" __global__ void NAME(const float* in, float* out, long long* clk, float m, int iters) {  \
        const int t = blockIdx.x * blockDim.x + threadIdx.x;                                           \
        float x = in[t], y = x + 1.0f, z = x + 2.0f, u = x + 3.0f;                                     \
        __syncthreads();                                                                               \
        const long long t0 = clock_now();                                                              \
        for (int i = 0; i < iters; i++) {                                                              \
            _Pragma("unroll") for (int k = 0; k < 8; k++) { BODY }                                     \
        }                                                                                              \
        const long long t1 = clock_now();                                                              \
        out[t] = x + y + z + u;                                                                        \
        if ((threadIdx.x & 31) == 0) {                                                                 \
            const int w = t >> 5;                                                                      \
            clk[4 * w] = t0;                                                                           \
            clk[4 * w + 1] = t1;                                                                       \
            clk[4 * w + 2] = sm_id();                                                                  \
            clk[4 * w + 3] = blockIdx.x;                                                               \
        }                                                                                              \
    }

// one dependent chain: a lone warp issues an FMUL every 4 cycles, four warps fill a scheduler
BLOCK_ORDER(k_chain, x *= m;)
// four independent chains: one warp alone keeps its scheduler issuing every cycle
BLOCK_ORDER(k_chains4, x *= m; y *= m; z *= m; u *= m;)
