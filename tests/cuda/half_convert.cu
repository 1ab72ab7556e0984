// Conversions (cuda_fp16.h, cuda_bf16.h): cvt.rn/rz.f16.f32, cvt.f32.f16, cvt.rn.f16x2.f32,
// cvt.rn/rz.bf16.f32, cvt.f32.bf16, cvt.rn.bf16x2.f32, cvt.rn.f16.s32, cvt.rzi.s32.f16.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

extern "C" __global__ void half_convert(const float* a, const float* b, const int* k, unsigned short* h,
                                        unsigned int* pairs, float* back, int* ints, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = a[i], y = b[i];
        __half hn = __float2half_rn(x);
        __nv_bfloat16 bn = __float2bfloat16_rn(x);
        h[6 * i + 0] = __half_as_ushort(hn);
        h[6 * i + 1] = __half_as_ushort(__float2half_rz(x));
        h[6 * i + 2] = __bfloat16_as_ushort(bn);
        h[6 * i + 3] = __bfloat16_as_ushort(__float2bfloat16_rz(x));
        h[6 * i + 4] = __half_as_ushort(__int2half_rn(k[i]));
        h[6 * i + 5] = __half_as_ushort(__float2half_rn(y));
        __half2 hp = __floats2half2_rn(x, y);
        __nv_bfloat162 bp = __floats2bfloat162_rn(x, y);
        pairs[2 * i + 0] = *reinterpret_cast<unsigned int*>(&hp);
        pairs[2 * i + 1] = *reinterpret_cast<unsigned int*>(&bp);
        back[2 * i + 0] = __half2float(hn);
        back[2 * i + 1] = __bfloat162float(bn);
        ints[i] = __half2int_rz(hn);
    }
}
