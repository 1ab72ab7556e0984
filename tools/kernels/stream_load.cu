// tools/latency_spread.py's `stream` kernel, for the model's side of tools/stream_load.py: warps
// read x[t * n + f] (one or two lines per warp and step); lane 0 records each step's wait.
extern "C" __global__ void stream(const float* __restrict__ x, int n, int m, int k, long long* lat, float* out) {
    __shared__ volatile float sink[1024];
    const int base = blockIdx.x * blockDim.x * 2 + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < m; t++) {
        const float* p = x + (size_t)t * n + base;
        long long t0 = clock64();
        float a, b = 0.0f;
        asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(a) : "l"(p));
        if (k > 1) asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(b) : "l"(p + blockDim.x));
        sink[threadIdx.x] = a + b;
        long long t1 = clock64();
        acc += a + b;
        if ((threadIdx.x & 31) == 0) lat[((size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32) * m + t] = t1 - t0;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
