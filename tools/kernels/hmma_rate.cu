// How many HMMA.16816 a sub-partition issues per cycle (tools/hmma_rate.py).  Every running warp
// (bit w of `active`; warp w sits on sub-partition w % 4) issues ITERS rounds of CHAINS independent
// mma.sync m16n8k16 (f16 inputs, f32 or f16 accumulators), each round's depending on the last.
// Lane 0 of each running warp writes clk[2 w], clk[2 w + 1]: the clock before and after.
#define WARPS 32
#define ITERS 128

__device__ __forceinline__ unsigned clock32() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)); return (unsigned)t; }

template <int CHAINS, bool F32>
__device__ __forceinline__ void hmma_loop(unsigned* clk, float* out, unsigned active) {
    const unsigned w = threadIdx.x / 32, lane = threadIdx.x & 31;
    if (!((active >> w) & 1)) return;
    unsigned a0 = 0x3c003c00u + lane, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, b0 = 0x3c00u + lane, b1 = b0 + 7;
    float d[CHAINS][4] = {};
    unsigned h[CHAINS][2] = {};
    const unsigned t0 = clock32();
#pragma unroll 1
    for (int i = 0; i < ITERS; i++) {
#pragma unroll
        for (int k = 0; k < CHAINS; k++) {
            if (F32)
                asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                             : "+f"(d[k][0]), "+f"(d[k][1]), "+f"(d[k][2]), "+f"(d[k][3])
                             : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
            else
                asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%0,%1};"
                             : "+r"(h[k][0]), "+r"(h[k][1])
                             : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
        }
    }
    const unsigned t1 = clock32();
    float acc = 0.f;
    for (int k = 0; k < CHAINS; k++) acc += d[k][0] + d[k][1] + d[k][2] + d[k][3] + __uint_as_float(h[k][0] ^ h[k][1]);
    out[threadIdx.x] = acc;
    if (lane == 0) { clk[2 * w] = t0; clk[2 * w + 1] = t1; }
}

#define RATE(NAME, CHAINS, F32) \
    extern "C" __global__ void __launch_bounds__(1024) NAME(unsigned* clk, float* out, unsigned active) { \
        hmma_loop<CHAINS, F32>(clk, out, active); }

RATE(k_f32_1, 1, true)
RATE(k_f32_4, 4, true)
RATE(k_f32_8, 8, true)
RATE(k_f16_1, 1, false)
RATE(k_f16_4, 4, false)
RATE(k_f16_8, 8, false)
