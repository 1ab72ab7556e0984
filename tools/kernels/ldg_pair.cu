// When the second of a warp's two back-to-back global loads returns (tools/ldg_pair.py).  Every
// running warp (bit w of `active`; warp w sits on sub-partition w % 4) reads the clock, issues two
// LDG.E of 32 lanes (one 128-byte line each, `gap` floats apart), then reads the clock once the
// first load's data is in (a shared store of it has issued) and again once the second's is: times[3 w .. 3 w + 2].  The lines start
// at x[base + w * 32] (each warp its own), so a launch with a fresh base finds them in DRAM and one
// with the same base again in L2 (ld.global.cg keeps them out of L1).
#define WARPS 32

__device__ __forceinline__ unsigned clock32() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)); return (unsigned)t; }
// a shared store of v: issued in order, it waits for v's load, and so does the clock read after it
__device__ __forceinline__ void arrived(unsigned at, float v) { asm volatile("st.shared.f32 [%0], %1;" ::"r"(at), "f"(v) : "memory"); }

extern "C" __global__ void __launch_bounds__(1024) k_ldg_pair(const float* x, unsigned* times,
                                                            unsigned active, unsigned long long base,
                                                            unsigned long long gap) {
    const unsigned w = threadIdx.x / 32, lane = threadIdx.x & 31;
    if (!((active >> w) & 1)) return;
    __shared__ float seen[2 * 1024];
    const float* p = x + base + w * 32 + lane;
    const unsigned at = (unsigned)__cvta_generic_to_shared(seen) + threadIdx.x * 4;
    float a, b;
    const unsigned t0 = clock32();
    asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(a) : "l"(p));
    asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(b) : "l"(p + gap));
    arrived(at, a);
    const unsigned t1 = clock32();
    arrived(at + 4096, b);
    const unsigned t2 = clock32();
    if (lane == 0) { times[3 * w] = t0; times[3 * w + 1] = t1; times[3 * w + 2] = t2; }
}
