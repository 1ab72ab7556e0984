// How fast one SM takes lines from L2 (tools/l2_rate.py): every warp of a block loads `steps` x 8
// lines (ld.global.cg: L2, never L1), 8 independent loads at a time, each lane a word of the line;
// warp w of block b reads lines (b * warps + w) * 8 * steps ... + 8 * steps - 1 of x.  The lines
// were read by an earlier launch, so they hit L2.  times[2 (32 b + w)]: the warp's clock before its
// first load and after its last line has arrived; out: the sums, so that no load is dropped.
__device__ __forceinline__ unsigned clock32() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)); return (unsigned)t; }

extern "C" __global__ void __launch_bounds__(1024) k_l2_rate(const float* x, unsigned* times, float* out, int steps) {
    const unsigned w = threadIdx.x / 32, lane = threadIdx.x & 31, warps = blockDim.x / 32;
    const float* p = x + (size_t)(blockIdx.x * warps + w) * 8 * steps * 32 + lane;
    float sum = 0.0f;
    __syncthreads();
    const unsigned t0 = clock32();
    for (int s = 0; s < steps; ++s) {
        float v[8];
#pragma unroll
        for (int j = 0; j < 8; ++j) asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(v[j]) : "l"(p + (s * 8 + j) * 32));
#pragma unroll
        for (int j = 0; j < 8; ++j) sum += v[j];
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
    const unsigned t1 = clock32();
    if (lane == 0) { times[2 * (32 * blockIdx.x + w)] = t0; times[2 * (32 * blockIdx.x + w) + 1] = t1; }
}
