// Half and bfloat16 arithmetic with infinite and subnormal constants: nvdisasm prints the packed
// immediates as `+INF, +INF` or `9.18e-41, 9.18e-41` (HADD2.BF16_V2 R4, R2.H0_H0, +INF, +INF).
#include <cuda_fp16.h>
#include <cuda_bf16.h>
extern "C" __global__ void sass_half_imm(const unsigned short* b, const unsigned short* h, unsigned short* o, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __nv_bfloat16 x = __ushort_as_bfloat16(b[i]);
    __half y = __ushort_as_half(h[i]);
    o[4 * i + 0] = __bfloat16_as_ushort(__hadd(x, __ushort_as_bfloat16((unsigned short)0x7f80u)));
    o[4 * i + 1] = __bfloat16_as_ushort(__hmul(x, __ushort_as_bfloat16((unsigned short)0x0001u)));
    o[4 * i + 2] = __half_as_ushort(__hadd(y, __ushort_as_half((unsigned short)0xfc00u)));
    o[4 * i + 3] = __half_as_ushort(__hmul(y, __ushort_as_half((unsigned short)0x0001u)));
}
