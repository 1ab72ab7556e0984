// Two loads a warp, from DRAM (tools/load_pair.py): every warp of a block loads line a, then line b
// (32 lanes, ld.global.cg, a and b `half` floats apart), writes b to shared memory, reads the clock,
// writes a, reads the clock: times[3 (32 blk + w) + 0..2] = before the loads, once b has arrived,
// once a has too.  Is the first-issued load ever back long after the second?  k_load_pair_l2 reads
// b (and waits for it) before the clock, so that b hits L2; k_load_pair_l1 does so with
// ld.global.ca, b then hitting L1: does a hit wait behind an earlier miss of its warp?  k_load_pair_nc
// and _plain load both lines as ld.global.nc (LDG.E.CONSTANT) / ld.global (LDG.E) do, _nc_l2 with b
// read once before (ld.global.cg: an L2 hit).
__device__ __forceinline__ unsigned clock32() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)); return (unsigned)t; }
__device__ __forceinline__ void arrived(unsigned at, float v) { asm volatile("st.shared.f32 [%0], %1;" ::"r"(at), "f"(v) : "memory"); }

// WARM: 0 ld.global.cg, 1 the same (b read once before), 2 ld.global.ca, 3 ld.global.nc, 4 ld.global,
// 5 ld.global.nc with b read once before by ld.global.cg (an L2 hit)
template <int WARM>
__device__ __forceinline__ float load_b(const float* q) {
    float b;
    if (WARM == 2) asm volatile("ld.global.ca.f32 %0, [%1];" : "=f"(b) : "l"(q) : "memory");
    else if (WARM == 3 || WARM == 5) asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(b) : "l"(q) : "memory");
    else if (WARM == 4) asm volatile("ld.global.f32 %0, [%1];" : "=f"(b) : "l"(q) : "memory");
    else asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(b) : "l"(q) : "memory");
    return b;
}

template <int WARM>
__device__ __forceinline__ void load_pair(const float* x, unsigned* times, unsigned long long region,
                                          unsigned long long half) {
    const unsigned w = threadIdx.x / 32, lane = threadIdx.x & 31;
    __shared__ float seen[2048];
    __syncthreads();
    const float* p = x + blockIdx.x * region + w * 256 + lane;
    const unsigned at = (unsigned)__cvta_generic_to_shared(seen) + threadIdx.x * 4;
    float a, b;
    if (WARM == 1 || WARM == 2 || WARM == 5) {
        arrived(at + 4096, load_b<WARM == 5 ? 1 : WARM>(p + half));
        __syncwarp();
    }
    const unsigned t0 = clock32();
    // b's address waits for the clock (an offset ptxas cannot fold away), so that ptxas issues a
    // first even where b's address is ready before a's
    const float* q = p + half + (t0 == 0xffffffffu ? 32 : 0);
    a = load_b<(WARM >= 3 ? WARM : 0)>(p);
    b = load_b<WARM>(q);
    arrived(at + 4096, b);
    const unsigned t1 = clock32();
    arrived(at, a);
    const unsigned t2 = clock32();
    if (lane == 0) {
        unsigned* t = times + 3 * (32 * blockIdx.x + w);
        t[0] = t0; t[1] = t1; t[2] = t2;
    }
}

extern "C" __global__ void __launch_bounds__(1024) k_load_pair(const float* x, unsigned* times,
                                                              unsigned long long region, unsigned long long half) {
    load_pair<0>(x, times, region, half);
}
extern "C" __global__ void __launch_bounds__(1024) k_load_pair_l2(const float* x, unsigned* times,
                                                                 unsigned long long region, unsigned long long half) {
    load_pair<1>(x, times, region, half);
}
extern "C" __global__ void __launch_bounds__(1024) k_load_pair_l1(const float* x, unsigned* times,
                                                                 unsigned long long region, unsigned long long half) {
    load_pair<2>(x, times, region, half);
}
extern "C" __global__ void __launch_bounds__(1024) k_load_pair_nc(const float* x, unsigned* times,
                                                                 unsigned long long region, unsigned long long half) {
    load_pair<3>(x, times, region, half);
}
extern "C" __global__ void __launch_bounds__(1024) k_load_pair_plain(const float* x, unsigned* times,
                                                                    unsigned long long region, unsigned long long half) {
    load_pair<4>(x, times, region, half);
}
extern "C" __global__ void __launch_bounds__(1024) k_load_pair_nc_l2(const float* x, unsigned* times,
                                                                    unsigned long long region, unsigned long long half) {
    load_pair<5>(x, times, region, half);
}
