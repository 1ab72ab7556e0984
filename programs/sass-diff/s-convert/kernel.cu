#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include "../../include/sass_diff.cuh"

// I2F / I2FP (int -> float in every rounding mode, 32 and 64 bit, signed and unsigned, -> double,
// -> half), F2I (float/double -> int: truncation, .NTZ, round-to-nearest / down / up, .U32, .S64,
// .U64; NaN and out-of-range saturation), F2F (f32 <-> f64 <-> f16 / bf16), F2FP.PACK_AB
// (two floats -> half2 / bfloat162) and F2FP with .RZ.  a: float bits, b: integers, d: double bits.
extern "C" __global__ void s_convert(const unsigned* a, const unsigned* b, const unsigned long long* d,
                                     unsigned* out, int n) {
    SIMT_SITE(1);                                   // entry (trace variant only)
    int i = SASS_DIFF_TID();
    if (i >= n) return;
    float x = as_f32(a[i]);
    unsigned u = b[i];
    int s = (int)u;
    double dx = as_f64(d[i]);
    long long sl = (long long)d[i];
    unsigned long long ul = d[i];
    PUT(0, bits((float)s));
    PUT(1, bits((float)u));
    PUT(2, bits(__int2float_rz(s)));
    PUT(3, bits(__int2float_rd(s)));
    PUT(4, bits(__uint2float_ru(u)));
    PUT(5, bits((float)sl));
    PUT(6, bits(__ull2float_rz(ul)));
    double ds = (double)s;
    PUT(7, (unsigned)(bits64(ds) >> 32));
    PUT(8, (unsigned)__half_as_ushort(__int2half_rn(s)));
    PUT(9, (unsigned)(int)x);
    PUT(10, (unsigned)x);
    PUT(11, (unsigned)__float2int_rn(x));
    PUT(12, (unsigned)__float2int_rd(x));
    PUT(13, (unsigned)__float2uint_ru(x));
    long long l = (long long)x;
    PUT(14, (unsigned)l);
    PUT(15, (unsigned)((unsigned long long)l >> 32));
    unsigned long long lu = __float2ull_rn(x);
    PUT(16, (unsigned)lu);
    PUT(17, (unsigned)(lu >> 32));
    PUT(18, (unsigned)(int)dx);
    PUT(19, (unsigned)__double2uint_rd(dx));
    long long dl = __double2ll_rz(dx);
    PUT(20, (unsigned)dl);
    PUT(21, (unsigned)((unsigned long long)dl >> 32));
    PUT(22, (unsigned)__half2short_rn(__ushort_as_half((unsigned short)u)));
    double xd = (double)x;                          // F2F.F64.F32
    PUT(23, (unsigned)bits64(xd));
    PUT(24, (unsigned)(bits64(xd) >> 32));
    PUT(25, bits((float)dx));                       // F2F.F32.F64
    PUT(26, bits(__double2float_rz(dx)));
    PUT(27, (unsigned)__half_as_ushort(__float2half_rn(x)));
    PUT(28, (unsigned)__half_as_ushort(__float2half_rz(x)));
    PUT(29, (unsigned)__bfloat16_as_ushort(__float2bfloat16_rn(x)));
    PUT(30, (unsigned)__half_as_ushort(__double2half(dx)));
    PUT(31, (unsigned)__bfloat16_as_ushort(__double2bfloat16(dx)));
    __half2 h2 = __floats2half2_rn(x, as_f32(u));   // F2FP.F16.F32.PACK_AB
    PUT(32, *(unsigned*)&h2);
    __nv_bfloat162 b2 = __floats2bfloat162_rn(as_f32(u), x);
    PUT(33, *(unsigned*)&b2);
    PUT(34, bits(__half2float(__ushort_as_half((unsigned short)(u >> 16)))));
    PUT(35, bits(__bfloat162float(__ushort_as_bfloat16((unsigned short)u))));
    PUT(36, (unsigned)(bits64((double)__half2float(__ushort_as_half((unsigned short)u))) >> 32));
}
