// How fast a sub-partition and a lone warp issue shared-memory accesses with bank conflicts
// (tools/shared_rate.py).  Every running warp (bit w of `active`; warp w sits on sub-partition
// w % 4) issues 64 iterations of 8 independent accesses of one kind, each to its own 2 KB region
// of shared memory (all warps share the 8 regions); lane l accesses word offset(l) of it:
//   PATTERN 0: l * STRIDE * VEC words (STRIDE 1: conflict-free);
//   PATTERN 1: the m16n8 accumulator tile, row l / 4 of 16 words, word 2 (l % 4) (VEC 2: 4 passes);
//   PATTERN 2: lanes 0-15 only, l * 16 words (rows of 64 bytes: 8 passes).
// Lane 0 of each running warp writes clk[2 w], clk[2 w + 1]: the clock before and after.
#define ITERS 64
#define WARPS 16

template <int PATTERN, int VEC, int STRIDE>
__device__ __forceinline__ unsigned word_offset(unsigned lane) {
    if (PATTERN == 1) return (lane >> 2) * 16 + 2 * (lane & 3);
    if (PATTERN == 2) return lane * 16;
    return lane * STRIDE * VEC;
}

template <bool STORE, int PATTERN, int VEC, int STRIDE>
__device__ __forceinline__ void rate_loop(long long* clk, unsigned* out, unsigned active) {
    __shared__ __align__(16) unsigned s[8 * 512];
    const unsigned w = threadIdx.x / 32, lane = threadIdx.x & 31;
    if (!STORE) {
        for (int i = threadIdx.x; i < 8 * 512; i += blockDim.x) s[i] = i;
        __syncthreads();
    }
    if (!((active >> w) & 1) || (PATTERN == 2 && lane >= 16)) return;
    const unsigned a = (unsigned)__cvta_generic_to_shared(s) + 4 * (word_offset<PATTERN, VEC, STRIDE>(lane) % 512);
    unsigned acc = threadIdx.x;
    const long long t0 = clock64();
#pragma unroll 1
    for (int it = 0; it < ITERS; it++) {
#pragma unroll
        for (int j = 0; j < 8; j++) {
            const unsigned p = a + j * 2048 + (threadIdx.x >> 10);
            if (STORE) {
                if (VEC == 4)
                    asm volatile("st.shared.v4.u32 [%0], {%1, %1, %1, %1};" :: "r"(p), "r"(acc + it) : "memory");
                else if (VEC == 2)
                    asm volatile("st.shared.v2.u32 [%0], {%1, %1};" :: "r"(p), "r"(acc + it) : "memory");
                else
                    asm volatile("st.shared.u32 [%0], %1;" :: "r"(p), "r"(acc + it) : "memory");
            } else {
                unsigned x, y = 0, z = 0, u = 0;
                if (VEC == 4) {
                    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(x), "=r"(y), "=r"(z), "=r"(u) : "r"(p) : "memory");
                } else if (VEC == 2) {
                    asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "r"(p) : "memory");
                } else {
                    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(x) : "r"(p) : "memory");
                }
                acc ^= x ^ y ^ z ^ u;
            }
        }
    }
    const long long t1 = clock64();
    out[threadIdx.x] = acc;
    if (lane == 0) { clk[2 * w] = t0; clk[2 * w + 1] = t1; }
}

#define RATE(NAME, STORE, PATTERN, VEC, STRIDE) \
    extern "C" __global__ void __launch_bounds__(512) NAME(long long* clk, unsigned* out, unsigned active) { \
        rate_loop<STORE, PATTERN, VEC, STRIDE>(clk, out, active); }

RATE(k_sts32, true, 0, 1, 1)
RATE(k_sts32_4way, true, 0, 1, 4)
RATE(k_sts32_8way, true, 0, 1, 8)
RATE(k_sts64, true, 0, 2, 1)
RATE(k_sts64_tile, true, 1, 2, 1)
RATE(k_sts128, true, 0, 4, 1)
RATE(k_sts128_rows, true, 2, 4, 1)
RATE(k_lds32, false, 0, 1, 1)
RATE(k_lds32_4way, false, 0, 1, 4)
RATE(k_lds64, false, 0, 2, 1)
RATE(k_lds64_tile, false, 1, 2, 1)
RATE(k_lds128, false, 0, 4, 1)
RATE(k_lds128_rows, false, 2, 4, 1)
