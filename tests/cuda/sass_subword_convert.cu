// Conversions of half-words and bytes of a word: ptxas reads the upper half or a byte straight from
// the register with a source selector (I2F.U16 R2, R5.H1; I2F.S8 R3, R5.B1; I2F.F64.U16 ...),
// in float, double and half results, and integer narrowing of a selected part.
#include <cuda_fp16.h>
extern "C" __global__ void sass_subword_convert(const unsigned* in, float* f, double* d, unsigned short* h,
                                                int* k, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = in[i];
    f[10 * i + 0] = (float)(x >> 16);
    f[10 * i + 1] = (float)((x >> 8) & 0xff);
    f[10 * i + 2] = (float)((x >> 16) & 0xff);
    f[10 * i + 3] = (float)(x >> 24);
    f[10 * i + 4] = (float)(short)(x >> 16);
    f[10 * i + 5] = (float)(signed char)(x >> 8);
    f[10 * i + 6] = (float)(signed char)(x >> 16);
    f[10 * i + 7] = (float)(signed char)(x >> 24);
    f[10 * i + 8] = (float)(x & 0xffff) * 0.5f + (float)(x >> 16);
    f[10 * i + 9] = __half2float(__ushort_as_half((unsigned short)(x >> 16)));
    d[6 * i + 0] = (double)(x >> 16);
    d[6 * i + 1] = (double)(short)(x >> 16);
    d[6 * i + 2] = (double)(signed char)(x >> 8);
    d[6 * i + 3] = (double)((x >> 16) & 0xff);
    d[6 * i + 4] = (double)(signed char)(x >> 24);
    d[6 * i + 5] = (double)(unsigned char)(x >> 8);
    h[4 * i + 0] = __half_as_ushort(__ushort2half_rn((unsigned short)(x >> 16)));
    h[4 * i + 1] = __half_as_ushort(__short2half_rn((short)(x >> 16)));
    h[4 * i + 2] = __half_as_ushort(__int2half_rn((signed char)(x >> 8)));
    h[4 * i + 3] = __half_as_ushort(__uint2half_rn((x >> 24)));
    k[4 * i + 0] = (int)(signed char)(x >> 8) * 3;
    k[4 * i + 1] = (int)(short)(x >> 16) - 7;
    k[4 * i + 2] = (int)(signed char)(x >> 16) ^ 0x55;
    k[4 * i + 3] = (int)(unsigned char)(x >> 24) * (int)(short)x;
}
// bfloat16 and half to integer conversions (ptxas: F2I.BF16.NTZ / F2I.F16..., the source a 16-bit
// float in the register's low half, -x / |x| acting on its sign).
#include <cuda_bf16.h>
extern "C" __global__ void sass_bf16_to_int(const unsigned short* b, const unsigned short* h, int* k, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __nv_bfloat16 x = __ushort_as_bfloat16(b[i]);
    __half y = __ushort_as_half(h[i]);
    k[6 * i + 0] = __bfloat162int_rn(x);
    k[6 * i + 1] = (int)__bfloat162uint_rz(x);
    k[6 * i + 2] = __bfloat162int_rd(x) ^ 0x55;
    k[6 * i + 3] = __half2int_rn(y);
    k[6 * i + 4] = (int)__half2uint_ru(y);
    k[6 * i + 5] = (int)__bfloat162short_rz(x) + (int)__half2short_rz(y);
    k[6 * n + 2 * i] = (int)__bfloat162uint_rz(__hneg(x));     // F2I.U32.BF16.TRUNC R, -R: the sign flipped first
    k[6 * n + 2 * i + 1] = __half2int_rn(__habs(y));            // |R| of a half source
}
