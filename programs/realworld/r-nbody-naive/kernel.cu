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

// pos: float4 (x, y, z, mass) per body; acc[4 i .. 4 i + 2] = sum_j m_j r_ij / (|r_ij|^2 + eps)^1.5.
extern "C" __global__ void nbody_naive(const float4* pos, float4* acc, int n) {
    SIMT_SITE(1);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 bi = pos[i];
    float3 a = make_float3(0.0f, 0.0f, 0.0f);
    for (int j = 0; j < n; ++j)
        a = interact(bi, pos[j], a);
    acc[i] = make_float4(a.x, a.y, a.z, 0.0f);
    SIMT_SITE(2);
}
