// How fast one SM gets lines from DRAM by how far apart they lie (tools/dram_lines.py).  The
// block's first `warps` warps each load one 128-byte line (32 lanes, ld.global.cg: not kept in
// L1), warp w's `stride` floats after warp w - 1's, and read the clock before the load and once
// its data is in (a shared store of it has issued): times[2 w], times[2 w + 1].
__device__ __forceinline__ unsigned clock32() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)); return (unsigned)t; }
// a shared store of v: issued in order, it waits for v's load, and so does the clock read after it
__device__ __forceinline__ void arrived(unsigned at, float v) { asm volatile("st.shared.f32 [%0], %1;" ::"r"(at), "f"(v) : "memory"); }

extern "C" __global__ void __launch_bounds__(1024) k_dram_lines(const float* x, unsigned* times,
                                                              unsigned long long stride, int warps) {
    const unsigned w = threadIdx.x / 32, lane = threadIdx.x & 31;
    __shared__ float seen[1024];
    __syncthreads();                                  // the warps start together
    if (w >= (unsigned)warps) return;
    const float* p = x + w * stride + lane;
    const unsigned at = (unsigned)__cvta_generic_to_shared(seen) + threadIdx.x * 4;
    float a;
    const unsigned t0 = clock32();
    asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(a) : "l"(p));
    arrived(at, a);
    const unsigned t1 = clock32();
    if (lane == 0) { times[2 * w] = t0; times[2 * w + 1] = t1; }
}
