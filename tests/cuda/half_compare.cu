// __half comparisons (cuda_fp16.h): setp.f16 / setp.f16x2 / set.f16.  The header's inline asm
// declares its predicate in a scoped block: `{ .reg .pred __$temp3; setp.lt.f16 __$temp3, ...; }`.
#include <cuda_fp16.h>

extern "C" __global__ void half_compare(const __half* a, const __half* b, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __half x = a[i], y = b[i];
        out[i] = __hlt(x, y) | __hgeu(x, y) << 1 | __heq(x, y) << 2 | __hisnan(x) << 3;
    }
}
