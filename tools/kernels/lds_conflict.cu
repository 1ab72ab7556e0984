// How long a shared load with bank conflicts takes (tools/lds_conflict.py).  Each running warp
// chases a dependent chain: its lanes load from their word lane * STRIDE (+ 0 .. VEC - 1) of its own
// 2 KB of zeros, and the next address adds the loaded value, so each step waits the whole load.
// LANES lanes take part (the epilogue of the tensor-core predictor reads 16 rows 64 bytes apart).
// Lane 0 of each running warp writes times[2 w] and times[2 w + 1], the clock before and after.
#define WARPS 16
#define STEPS 64

__device__ __forceinline__ unsigned clock32() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)); return (unsigned)t; }

template <int VEC, int STRIDE, int LANES>
__device__ __forceinline__ void chase(unsigned* times, unsigned* out, unsigned active) {
    __shared__ __align__(16) unsigned s[WARPS * 512];
    const unsigned w = threadIdx.x / 32, lane = threadIdx.x & 31;
    for (int i = threadIdx.x; i < WARPS * 512; i += blockDim.x) s[i] = 0;
    __syncthreads();
    if (!((active >> w) & 1) || lane >= LANES) return;
    unsigned a = (unsigned)__cvta_generic_to_shared(s) + w * 2048 + ((lane * STRIDE) % 512) * 4;
    unsigned acc = 0;
    const unsigned t0 = clock32();
#pragma unroll 1
    for (int k = 0; k < STEPS; k++) {
        unsigned x, y, z, u;
        y = z = u = 0;
        if (VEC == 4) {
            asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(x), "=r"(y), "=r"(z), "=r"(u) : "r"(a) : "memory");
        } else if (VEC == 2) {
            asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "r"(a) : "memory");
        } else {
            asm volatile("ld.shared.u32 %0, [%1];" : "=r"(x) : "r"(a) : "memory");
        }
        a += x;
        acc += y + z + u;
    }
    const unsigned t1 = clock32();
    out[threadIdx.x] = acc + a;
    if (lane == 0) { times[2 * w] = t0; times[2 * w + 1] = t1; }
}

#define CHASE(NAME, VEC, STRIDE, LANES) \
    extern "C" __global__ void __launch_bounds__(512) NAME(unsigned* times, unsigned* out, unsigned active) { \
        chase<VEC, STRIDE, LANES>(times, out, active); }

CHASE(k_lds32_s1, 1, 1, 32)
CHASE(k_lds32_s2, 1, 2, 32)
CHASE(k_lds32_s4, 1, 4, 32)
CHASE(k_lds32_s8, 1, 8, 32)
CHASE(k_lds32_s16, 1, 16, 32)
CHASE(k_lds128_s4, 4, 4, 32)
CHASE(k_lds128_s16_h, 4, 16, 16)
CHASE(k_lds64_s16_h, 2, 16, 16)
CHASE(k_lds128_s4_h, 4, 4, 16)
