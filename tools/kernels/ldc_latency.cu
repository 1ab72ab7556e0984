// How long an LDC takes where ptxas puts one: a kernel parameter read into registers (bank 0, a
// fixed offset, as every kernel's prologue reads its pointers) and a __constant__ array read at a
// register index (bank 3) (tools/ldc_latency.py).  One warp reads the clock, makes its first store,
// through a pointer it forms in the window (in k_lc_none, formed before it), and reads the clock
// again: in-order issue makes the second clock read wait for the store's address, so for the LDC
// behind it.  clk = [t0, t1].
__constant__ float table[64];

__device__ __forceinline__ long long clk64() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) :: "memory"); return t; }
__device__ __forceinline__ unsigned tid_x() { unsigned v; asm volatile("mov.u32 %0, %%tid.x;" : "=r"(v) :: "memory"); return v; }
__device__ __forceinline__ void store_one(float* p) { asm volatile("st.global.f32 [%0], 1.0;" :: "l"(p) : "memory"); }
__device__ __forceinline__ float* held(float* p) { asm volatile("mov.b64 %0, %0;" : "+l"(p) :: "memory"); return p; }
__device__ __forceinline__ void store_value(float* p, float v) { asm volatile("st.global.f32 [%0], %1;" :: "l"(p), "f"(v) : "memory"); }

extern "C" __global__ void k_lc_none(float* out, long long* clk) {
    unsigned tid = tid_x();
    float* p = held(out + tid);
    long long t0 = clk64();
    store_one(p);
    long long t1 = clk64();
    if (tid == 0) { clk[0] = t0; clk[1] = t1; }
}

extern "C" __global__ void k_lc_first(float* out, long long* clk) {
    unsigned tid = tid_x();
    long long t0 = clk64();
    store_one(out + tid);
    long long t1 = clk64();
    if (tid == 0) { clk[0] = t0; clk[1] = t1; }
}

extern "C" __global__ void k_lc_indexed(float* out, long long* clk) {
    unsigned tid = tid_x();
    float* p = held(out + tid);
    long long t0 = clk64();
    store_value(p, table[tid & 63]);
    long long t1 = clk64();
    if (tid == 0) { clk[0] = t0; clk[1] = t1; }
}
