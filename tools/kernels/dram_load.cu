// DRAM refreshes under load (tools/dram_load.py): every block of a grid of one block per SM has its
// first `warps` warps each load one 128-byte line (32 lanes, ld.global.cg), 1 KiB after the previous
// warp's, block b's lines `region` floats after block b - 1's, and time their own loads as
// tools/kernels/dram_lines.cu does: times[64 b + 2 w], times[64 b + 2 w + 1].
__device__ __forceinline__ unsigned clock32() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)); return (unsigned)t; }
__device__ __forceinline__ void arrived(unsigned at, float v) { asm volatile("st.shared.f32 [%0], %1;" ::"r"(at), "f"(v) : "memory"); }

extern "C" __global__ void __launch_bounds__(1024) k_dram_load(const float* x, unsigned* times,
                                                             unsigned long long region, int warps) {
    const unsigned w = threadIdx.x / 32, lane = threadIdx.x & 31;
    __shared__ float seen[1024];
    __syncthreads();
    if (w >= (unsigned)warps) return;
    const float* p = x + blockIdx.x * region + w * 256 + lane;
    const unsigned at = (unsigned)__cvta_generic_to_shared(seen) + threadIdx.x * 4;
    float a;
    const unsigned t0 = clock32();
    asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(a) : "l"(p));
    arrived(at, a);
    const unsigned t1 = clock32();
    if (lane == 0) { times[64 * blockIdx.x + 2 * w] = t0; times[64 * blockIdx.x + 2 * w + 1] = t1; }
}
