// What the probe kernels of tools/ share: the kernel-parameter block of the constant probes
// (Pad: words at 0x220 on), clock and id reads, and values and pointers held in a register
// (an empty asm the compiler cannot see through, so that it neither folds nor moves them).
#pragma once
struct Pad { unsigned v[256]; };

__device__ __forceinline__ long long clk64() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) :: "memory"); return t; }
__device__ __forceinline__ unsigned tid_x() { unsigned v; asm volatile("mov.u32 %0, %%tid.x;" : "=r"(v) :: "memory"); return v; }
__device__ __forceinline__ unsigned sm_id() { unsigned v; asm volatile("mov.u32 %0, %%smid;" : "=r"(v)); return v; }
__device__ __forceinline__ unsigned warp_slot() { unsigned v; asm volatile("mov.u32 %0, %%warpid;" : "=r"(v)); return v; }
__device__ __forceinline__ unsigned held(unsigned v) { asm volatile("mov.b32 %0, %0;" : "+r"(v) :: "memory"); return v; }
__device__ __forceinline__ unsigned* held_ptr(unsigned* p) { asm volatile("mov.b64 %0, %0;" : "+l"(p) :: "memory"); return p; }
__device__ __forceinline__ void store(unsigned* p, unsigned v) { asm volatile("st.global.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory"); }
