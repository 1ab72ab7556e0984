// When a queued store reads its data register (tools/store_read.py).  Each step of a loop issues
// FILL 16-byte shared stores, then a store of x, then x = x * c + d, which overwrites the register
// that store reads and so waits for its read barrier.  The stores' addresses come from memory, so
// ptxas cannot reorder them; the loop carries x in one register.  If a store reads its data when
// it issues, the FFMA waits a few cycles and the warp's next stores queue behind the pipe; if it
// reads them when it leaves the memory-instruction queue for the LD/ST pipe, the FFMA waits until
// the fill stores before it have passed through the pipe, every step.  Only the warps whose bit is
// set in `active` run (warp w sits on sub-partition w % 4).  Lane 0 of each running warp writes
// times[2 w] and times[2 w + 1], the clock before and after STEPS steps.
#define WARPS 16
#define STEPS 64

// the low word of clock64 (CS2R, a fixed-latency read)
__device__ __forceinline__ unsigned clock32() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)); return (unsigned)t; }
__device__ __forceinline__ bool running(unsigned active) { return (active >> (threadIdx.x / 32)) & 1; }

// warp w's FILL + 1 rows of 512 bytes at shared byte w * 2048 + offs[i] (offs from the host:
// 0, 512, 1024, ...), lane l at 16 l; x's global row at out[w * 32].
#define STORE_READ_PROBE(NAME, FILL, STORE_X)                                                          \
    extern "C" __global__ void NAME(unsigned* times, float* out, const unsigned* offs, unsigned active, \
                                    float c, float d) {                                                \
        __shared__ __align__(16) float s[WARPS * 512];                                                \
        if (!running(active)) return;                                                                  \
        const unsigned base = (unsigned)__cvta_generic_to_shared(s) + (threadIdx.x / 32) * 2048 +      \
                              (threadIdx.x & 31) * 16;                                                 \
        constexpr int n_fill = FILL;   \
        unsigned a[FILL + 1];                                                                          \
        _Pragma("unroll") for (int i = 0; i <= FILL; i++) a[i] = base + offs[i];                       \
        float* g = out + (threadIdx.x / 32) * 32 + (threadIdx.x & 31);                                 \
        const float y = threadIdx.x * 0.5f;                                                            \
        float x = threadIdx.x * 0.25f;                                                                 \
        const unsigned t0 = clock32();                                                                 \
        _Pragma("unroll 1") for (int k = 0; k < STEPS; k++) {                                          \
            _Pragma("unroll") for (int i = 0; i < FILL; i++)                                           \
                asm volatile("st.shared.v4.f32 [%0], {%1, %1, %1, %1};" ::"r"(a[i]), "f"(y) : "memory"); \
            STORE_X;                                                                                   \
            x = fmaf(x, c, d);                                                                         \
        }                                                                                              \
        const unsigned t1 = clock32();                                                                 \
        out[WARPS * 32 + threadIdx.x] = x;                                                             \
        if ((threadIdx.x & 31) == 0) {                                                                 \
            times[2 * (threadIdx.x / 32)] = t0;                                                        \
            times[2 * (threadIdx.x / 32) + 1] = t1;                                                    \
        }                                                                                              \
    }

#define X_TO_SHARED asm volatile("st.shared.f32 [%0], %1;" ::"r"(a[n_fill]), "f"(x) : "memory")
#define X_TO_GLOBAL asm volatile("st.global.f32 [%0], %1;" ::"l"(g), "f"(x) : "memory")

STORE_READ_PROBE(k_sts_fill0, 0, X_TO_SHARED)
STORE_READ_PROBE(k_sts_fill1, 1, X_TO_SHARED)
STORE_READ_PROBE(k_sts_fill2, 2, X_TO_SHARED)
STORE_READ_PROBE(k_sts_fill4, 4, X_TO_SHARED)
STORE_READ_PROBE(k_stg_fill0, 0, X_TO_GLOBAL)
STORE_READ_PROBE(k_stg_fill1, 1, X_TO_GLOBAL)
STORE_READ_PROBE(k_stg_fill2, 2, X_TO_GLOBAL)
STORE_READ_PROBE(k_stg_fill4, 4, X_TO_GLOBAL)
