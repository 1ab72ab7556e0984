#include "../../include/simt_trace.cuh"

#define SOFT 0.01f
__device__ __forceinline__ float3 interact(float4 bi, float4 bj, float3 a) {
    float dx = bj.x - bi.x, dy = bj.y - bi.y, dz = bj.z - bi.z;
    float d2 = dx * dx + dy * dy + dz * dz + SOFT;
    float inv = rsqrtf(d2);
    float s = bj.w * inv * inv * inv;
    a.x += dx * s; a.y += dy * s; a.z += dz * s;
    return a;
}

extern "C" __global__ void nbody_tiled(const float4* pos, float4* acc, int n) {
    SIMT_SITE(1);
    __shared__ float4 tile[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 bi = pos[i];
    float3 a = make_float3(0.0f, 0.0f, 0.0f);
    for (int base = 0; base < n; base += blockDim.x) {
        tile[threadIdx.x] = pos[base + threadIdx.x];
        __syncthreads();
#pragma unroll 4
        for (int j = 0; j < 128; ++j)
            a = interact(bi, tile[j], a);
        __syncthreads();
    }
    acc[i] = make_float4(a.x, a.y, a.z, 0.0f);
    SIMT_SITE(2);
}
