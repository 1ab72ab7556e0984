// How many cycles a conversion or special-function instruction holds its sub-partition's XU pipe
// (tools/xu_rate.py).  Each thread runs STEPS steps of 8 independent chains; a step converts each
// chain's value (the instruction under test), adds the result to an accumulator of the result's
// type and multiplies the value by c, so no conversion can be hoisted and none waits for another.
// With enough warps per sub-partition a step costs the XU pipe's time for the 8 conversions.
// Lane 0 of each warp writes clk[2 w] and clk[2 w + 1], the clock before and after the loop.
#define STEPS 128
#define CHAINS 8

__device__ __forceinline__ long long clock_now() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)); return t; }

// SRC: the chains' type, DST: the result's type, CVT: the asm that turns x[i] into y
#define XU_PROBE(NAME, SRC, DST, CVT)                                                                  \
    extern "C" __global__ void NAME(long long* clk, float* out, SRC c) {                              \
        SRC x[CHAINS];                                                                                 \
        DST acc[CHAINS];                                                                               \
        _Pragma("unroll") for (int i = 0; i < CHAINS; i++) {                                           \
            x[i] = (SRC)(threadIdx.x * 0.001f + i * 0.125f);                                           \
            acc[i] = (DST)0;                                                                           \
        }                                                                                              \
        __syncthreads();                                                                               \
        const long long t0 = clock_now();                                                              \
        _Pragma("unroll 1") for (int k = 0; k < STEPS; k++) {                                          \
            _Pragma("unroll") for (int i = 0; i < CHAINS; i++) {                                       \
                DST y;                                                                                 \
                CVT;                                                                                   \
                acc[i] += y;                                                                           \
                x[i] *= c;                                                                             \
            }                                                                                          \
        }                                                                                              \
        const long long t1 = clock_now();                                                              \
        float s = 0.0f;                                                                                \
        _Pragma("unroll") for (int i = 0; i < CHAINS; i++) s += (float)acc[i];                         \
        out[blockIdx.x * blockDim.x + threadIdx.x] = s;                                                \
        if ((threadIdx.x & 31) == 0) {                                                                 \
            clk[2 * (threadIdx.x / 32)] = t0;                                                          \
            clk[2 * (threadIdx.x / 32) + 1] = t1;                                                      \
        }                                                                                              \
    }

XU_PROBE(k_f2f_f64_f32, float, double, asm volatile("cvt.f64.f32 %0, %1;" : "=d"(y) : "f"(x[i])))
XU_PROBE(k_f2f_f32_f64, double, float, asm volatile("cvt.rn.f32.f64 %0, %1;" : "=f"(y) : "d"(x[i])))
XU_PROBE(k_mufu_ex2, float, float, asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x[i])))
XU_PROBE(k_i2f_f32_s32, float, float, asm volatile("cvt.rn.f32.s32 %0, %1;" : "=f"(y) : "r"(__float_as_int(x[i]))))
