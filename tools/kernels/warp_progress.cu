// How an SM's warps share its schedulers over time (tools/warp_progress.py): block_order.cu's two
// loops (one dependent FMUL chain a warp, or four), every warp recording the clock each CHECK
// iterations as well: prog[w * (ITERS / CHECK + 1) + k] is warp w's clock when it starts iteration
// k * CHECK (k = ITERS / CHECK: after the loop); info[2 w], info[2 w + 1] its SM and block.
// Every lane stores the same word (one sector), so the checkpoints add no divergence.
#define ITERS 256
#define CHECK 16
__device__ __forceinline__ long long clock_now() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)); return t; }
__device__ __forceinline__ unsigned sm_id() { unsigned s; asm volatile("mov.u32 %0, %%smid;" : "=r"(s)); return s; }

#define PROGRESS(NAME, BODY)                                                                            \
    extern "C" __global__ void NAME(const float* in, float* out, long long* prog, int* info, float m) {  \
        const int t = blockIdx.x * blockDim.x + threadIdx.x;                                           \
        const int w = t >> 5;                                                                          \
        long long* mine = prog + w * (ITERS / CHECK + 1);                                              \
        float x = in[t], y = x + 1.0f, z = x + 2.0f, u = x + 3.0f;                                     \
        __syncthreads();                                                                               \
        for (int i = 0; i < ITERS; i++) {                                                              \
            if (i % CHECK == 0) mine[i / CHECK] = clock_now();                                         \
            _Pragma("unroll") for (int k = 0; k < 8; k++) { BODY }                                     \
        }                                                                                              \
        mine[ITERS / CHECK] = clock_now();                                                             \
        out[t] = x + y + z + u;                                                                        \
        if ((threadIdx.x & 31) == 0) { info[2 * w] = sm_id(); info[2 * w + 1] = blockIdx.x; }          \
    }

PROGRESS(k_chain_progress, x *= m;)
PROGRESS(k_chains4_progress, x *= m; y *= m; z *= m; u *= m;)
