#include <cuda_fp16.h>
// The CUDA headers' __half2 helpers: inline asm with scoped `{ .reg .f16 low, high; ... }`
// blocks that pack and unpack halves (mov.b32 {low, high}, %r / mov.b32 %r, {high, low}).
extern "C" __global__ void half_swap(const __half2* in, __half2* out, __half* lows, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half2 h = in[i];
    __half lo = __low2half(h);
    __half hi = __high2half(h);
    out[i] = __halves2half2(hi, lo);
    lows[i] = lo;
}
