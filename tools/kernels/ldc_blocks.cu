// Which blocks pay an LDC's first read of a parameter line (tools/ldc_blocks.py): each block, one
// warp holding most of its SM's shared memory (so an SM runs its blocks one after the other),
// reads the clock, makes its first store through a pointer it forms in the window from a kernel
// parameter (k_lcb_first: LDC.64 c[0x0][0x210]) or before it (k_lcb_none), and reads the clock
// again.  Lane 0 writes clk[3 b .. 3 b + 2] = t0, t1, %smid.
__device__ __forceinline__ long long clk64() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) :: "memory"); return t; }
__device__ __forceinline__ unsigned tid_x() { unsigned v; asm volatile("mov.u32 %0, %%tid.x;" : "=r"(v) :: "memory"); return v; }
__device__ __forceinline__ unsigned sm_id() { unsigned v; asm volatile("mov.u32 %0, %%smid;" : "=r"(v)); return v; }
__device__ __forceinline__ void store_one(float* p) { asm volatile("st.global.f32 [%0], 1.0;" :: "l"(p) : "memory"); }
__device__ __forceinline__ float* held(float* p) { asm volatile("mov.b64 %0, %0;" : "+l"(p) :: "memory"); return p; }
__device__ __forceinline__ unsigned held_u32(unsigned v) { asm volatile("mov.b32 %0, %0;" : "+r"(v) :: "memory"); return v; }

extern "C" __global__ void k_lcb_none(float* out, long long* clk) {
    extern __shared__ float pad[];
    unsigned tid = tid_x();
    float* p = held(out + blockIdx.x * 32 + tid);
    long long t0 = clk64();
    store_one(p);
    long long t1 = clk64();
    if (tid == 0) { clk[3 * blockIdx.x] = t0; clk[3 * blockIdx.x + 1] = t1; clk[3 * blockIdx.x + 2] = sm_id(); pad[0] = 0.0f; }
}

extern "C" __global__ void k_lcb_first(float* out, long long* clk) {
    extern __shared__ float pad[];
    unsigned tid = tid_x();
    unsigned offset = held_u32(blockIdx.x * 32 + tid);
    long long t0 = clk64();
    store_one(out + offset);
    long long t1 = clk64();
    if (tid == 0) { clk[3 * blockIdx.x] = t0; clk[3 * blockIdx.x + 1] = t1; clk[3 * blockIdx.x + 2] = sm_id(); pad[0] = 0.0f; }
}
