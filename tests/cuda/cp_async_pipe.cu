// A double-buffered cp.async pipeline: each block streams tiles of x into shared memory while it
// sums the previous tile (the pattern of software-pipelined loops).
#include <cuda_pipeline.h>
#define TILE 128
extern "C" __global__ void cp_async_pipe(const float* x, float* out, int tiles) {
    __shared__ float buf[2][TILE];
    const float* base = x + (size_t)blockIdx.x * tiles * TILE;
    float acc = 0.0f;
    __pipeline_memcpy_async(&buf[0][threadIdx.x], &base[threadIdx.x], sizeof(float));
    __pipeline_commit();
    for (int t = 0; t < tiles; ++t) {
        if (t + 1 < tiles)
            __pipeline_memcpy_async(&buf[(t + 1) & 1][threadIdx.x], &base[(t + 1) * TILE + threadIdx.x], sizeof(float));
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        acc += buf[t & 1][(threadIdx.x * 7) % TILE] * (float)(t + 1);
        __syncthreads();
    }
    out[blockIdx.x * TILE + threadIdx.x] = acc;
}
