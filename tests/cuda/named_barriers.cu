// Named barriers, as warp-specialised and inner-block-fused kernels use them: the first 128
// threads (producers) synchronise among themselves on barrier 2, then hand a stage in shared
// memory to the other 128 (consumers) with bar.arrive on barrier 1, which the consumers wait at.
__device__ __forceinline__ void named_sync(int id, int threads) {
    asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void named_arrive(int id, int threads) {
    asm volatile("bar.arrive %0, %1;" :: "r"(id), "r"(threads) : "memory");
}

extern "C" __global__ void named_barriers(const int* in, int* out) {
    __shared__ int part[128];
    __shared__ int stage[128];
    int t = threadIdx.x;
    const int* src = in + blockIdx.x * 128;
    if (t < 128) {
        int v = src[t] * 3;
        part[t] = v;
        named_sync(2, 128);                  // producers only
        stage[t] = v + part[t ^ 64];
        named_arrive(1, 256);                // the stage is ready; do not wait for the consumers
    } else {
        named_sync(1, 256);                  // consumers wait for the producers' arrival
        int c = t - 128;
        out[blockIdx.x * 128 + c] = stage[127 - c] - 1;
    }
}
