// A module with two kernels: `mixes` calls a __noinline__ device function (a .func and `call`)
// from divergent code (inside `if (i < n)`), `plain` does not.
__device__ __noinline__ int mix(int a, int b) { return a * 31 + (b ^ 0x55); }

extern "C" __global__ void mixes(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = mix(in[i], i);
}

extern "C" __global__ void plain(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * 7 - i;
}
