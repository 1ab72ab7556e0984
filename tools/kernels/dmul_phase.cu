// Does what a DMUL costs 8 warps per sub-partition among FMULs depend on the warps' phase
// (tools/dmul_phase.py)?  The loop of programs/include/t_fp64_issue.cuh: STEPS steps of 8
// independent multiplies, N_FP64 of them DMUL and the rest FMUL.  Before the loop, the warp in
// slot s of its sub-partition (s = warp / 4, 0..7) runs s * pad steps of a dependent FMUL chain,
// so `pad` staggers the warps' starts by a few cycles each and they enter the loop in another
// phase.  Lane 0 of warp w writes clk[2 w] and clk[2 w + 1], the clock before and after the loop.
#define STEPS 256

__device__ __forceinline__ long long clock_now() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)); return t; }

#define PHASE_PROBE(NAME, N_FP64)                                                                     \
    extern "C" __global__ void NAME(long long* clk, float* out, float m, double md, int pad) {        \
        const int t = threadIdx.x;                                                                    \
        float x[8 - N_FP64];                                                                          \
        double d[N_FP64 + 1];                                                                         \
        _Pragma("unroll") for (int k = 0; k < 8 - N_FP64; k++) x[k] = t * 0.001f + k * 0.125f;        \
        _Pragma("unroll") for (int k = 0; k <= N_FP64; k++) d[k] = t + k;                             \
        __syncthreads();                                                                              \
        const int stagger = (t >> 7) * pad;                                                           \
        _Pragma("unroll 1") for (int k = 0; k < stagger; k++) x[0] *= m;                             \
        const long long t0 = clock_now();                                                             \
        _Pragma("unroll 1") for (int i = 0; i < STEPS; i++) {                                         \
            _Pragma("unroll") for (int k = 0; k < N_FP64; k++) d[k] *= md;                            \
            _Pragma("unroll") for (int k = 0; k < 8 - N_FP64; k++) x[k] *= m;                         \
        }                                                                                             \
        const long long t1 = clock_now();                                                             \
        float s = 0.0f;                                                                               \
        _Pragma("unroll") for (int k = 0; k < 8 - N_FP64; k++) s += x[k];                             \
        _Pragma("unroll") for (int k = 0; k <= N_FP64; k++) s += (float)d[k];                         \
        out[t] = s;                                                                                   \
        if ((t & 31) == 0) {                                                                          \
            clk[2 * (t >> 5)] = t0;                                                                   \
            clk[2 * (t >> 5) + 1] = t1;                                                               \
        }                                                                                             \
    }

PHASE_PROBE(k_f0, 0)
PHASE_PROBE(k_d1, 1)
PHASE_PROBE(k_d2, 2)
PHASE_PROBE(k_d4, 4)
