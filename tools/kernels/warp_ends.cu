// When each warp of the warp-specialisation kernel ends (tools/warp_ends.py): the loop of
// programs/include/w_warpspec.cuh (the first `fp64_warps` warps of a 1024-thread block multiply
// one FP64 chain, the others one FP32 chain, `iters` x 8 dependent multiplies each), with lane 0 of
// warp w writing clk[2 w] and clk[2 w + 1], the clock before and after its own loop.
__device__ __forceinline__ long long clock_now() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)); return t; }

#define WARP_ENDS(NAME, UNROLL)                                                                         \
    extern "C" __global__ void NAME(const float* in, float* out32, double* out64, long long* clk,       \
                                    float m, double md, int iters, int fp64_warps) {                   \
        const int t = threadIdx.x;                                                                     \
        float x = 0.0f;                                                                                \
        double d = 0.0;                                                                                \
        __syncthreads();                                                                               \
        const long long t0 = clock_now();                                                              \
        if ((t >> 5) < fp64_warps) {                                                                   \
            d = (double)in[t];                                                                         \
            _Pragma(UNROLL) for (int i = 0; i < iters; i++) {                                          \
                _Pragma("unroll") for (int k = 0; k < 8; k++) d *= md;                                 \
            }                                                                                          \
        } else {                                                                                       \
            x = in[t];                                                                                 \
            _Pragma(UNROLL) for (int i = 0; i < iters; i++) {                                          \
                _Pragma("unroll") for (int k = 0; k < 8; k++) x *= m;                                  \
            }                                                                                          \
        }                                                                                              \
        const long long t1 = clock_now();                                                              \
        out32[t] = x;                                                                                  \
        out64[t] = d;                                                                                  \
        if ((t & 31) == 0) {                                                                           \
            clk[2 * (t >> 5)] = t0;                                                                    \
            clk[2 * (t >> 5) + 1] = t1;                                                                \
        }                                                                                              \
    }

WARP_ENDS(warp_ends, "unroll 1")      // a taken loop branch every 8 multiplies
WARP_ENDS(warp_ends_u8, "unroll 8")   // one every 64: do the slots' ends depend on the branches?
