// Which instructions among FP32 multiplies make the H100's scheduler hold a warp back
// (Nsight Compute: dispatch stall; tools/dispatch_stall.py).  Each thread runs STEPS steps of 8
// independent FMUL chains plus EXTRA: none, or 1, 2 or 4 of an FP64 add chain (DADD), a widening
// conversion added into an FP64 chain (F2F.F64.F32 + DADD), or an exponential added into an FP32
// chain (MUFU.EX2 + FADD).  The added chains never feed the multiplies, so with 8 warps per
// sub-partition a step costs its issue slots plus what the scheduler loses to them.
// Lane 0 of each warp writes clk[2 w] and clk[2 w + 1], the clock before and after the loop.
#define STEPS 128

__device__ __forceinline__ long long clock_now() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)); return t; }

#define DISPATCH_PROBE(NAME, N_EXTRA, EXTRA)                                                           \
    extern "C" __global__ void NAME(long long* clk, float* out, float c, double e) {                  \
        float x[8];                                                                                    \
        double d[4];                                                                                   \
        float f[4];                                                                                    \
        _Pragma("unroll") for (int i = 0; i < 8; i++) x[i] = threadIdx.x * 0.001f + i * 0.125f;        \
        _Pragma("unroll") for (int j = 0; j < 4; j++) { d[j] = j; f[j] = j; }                          \
        __syncthreads();                                                                               \
        const long long t0 = clock_now();                                                              \
        _Pragma("unroll 1") for (int k = 0; k < STEPS; k++) {                                          \
            _Pragma("unroll") for (int i = 0; i < 8; i++) x[i] *= c;                                  \
            _Pragma("unroll") for (int j = 0; j < N_EXTRA; j++) { EXTRA; }                             \
        }                                                                                              \
        const long long t1 = clock_now();                                                              \
        float s = 0.0f;                                                                                \
        _Pragma("unroll") for (int i = 0; i < 8; i++) s += x[i];                                       \
        _Pragma("unroll") for (int j = 0; j < 4; j++) s += (float)d[j] + f[j];                         \
        out[blockIdx.x * blockDim.x + threadIdx.x] = s;                                                \
        if ((threadIdx.x & 31) == 0) {                                                                 \
            clk[2 * (threadIdx.x / 32)] = t0;                                                          \
            clk[2 * (threadIdx.x / 32) + 1] = t1;                                                      \
        }                                                                                              \
    }

#define DADD_STEP d[j] += e
#define F2F_STEP { double y; asm volatile("cvt.f64.f32 %0, %1;" : "=d"(y) : "f"(x[j])); d[j] += y; }
#define EX2_STEP { float y; asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x[j])); f[j] += y; }

DISPATCH_PROBE(k_none, 0, DADD_STEP)
DISPATCH_PROBE(k_dadd1, 1, DADD_STEP)
DISPATCH_PROBE(k_dadd4, 4, DADD_STEP)
DISPATCH_PROBE(k_f2f1, 1, F2F_STEP)
DISPATCH_PROBE(k_f2f2, 2, F2F_STEP)
DISPATCH_PROBE(k_f2f4, 4, F2F_STEP)
DISPATCH_PROBE(k_ex2_1, 1, EX2_STEP)
DISPATCH_PROBE(k_ex2_2, 2, EX2_STEP)
DISPATCH_PROBE(k_ex2_4, 4, EX2_STEP)
