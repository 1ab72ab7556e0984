#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include "../../include/sass_diff.cuh"

// HADD2 / HMUL2 / HFMA2 on f16x2 and bf16x2 (.BF16_V2), HFMA2.RELU, HMNMX2 (min/max, .NAN
// propagating), HSETP2 (comparisons of each half; unordered ones included) and HADD2.F32
// (half -> float).  Each operand word holds two halves (low, high).
__device__ __forceinline__ __half2 h2(unsigned u) { return *(__half2*)&u; }
__device__ __forceinline__ __nv_bfloat162 b2(unsigned u) { return *(__nv_bfloat162*)&u; }
__device__ __forceinline__ unsigned w(__half2 v) { return *(unsigned*)&v; }
__device__ __forceinline__ unsigned w(__nv_bfloat162 v) { return *(unsigned*)&v; }

extern "C" __global__ void s_half(const unsigned* a, const unsigned* b, const unsigned* c,
                                  unsigned* out, int n) {
    SIMT_SITE(1);                                   // entry (trace variant only)
    int i = SASS_DIFF_TID();
    if (i >= n) return;
    unsigned x = a[i], y = b[i], z = c[i];
    PUT(0, w(__hadd2(h2(x), h2(y))));
    PUT(1, w(__hsub2(h2(x), h2(z))));
    PUT(2, w(__hmul2(h2(x), h2(y))));
    PUT(3, w(__hfma2(h2(x), h2(y), h2(z))));
    PUT(4, w(__hfma2_relu(h2(x), h2(y), h2(z))));
    PUT(5, w(__hmin2(h2(x), h2(y))));
    PUT(6, w(__hmax2_nan(h2(x), h2(z))));
    PUT(7, w(__hadd2_sat(h2(y), h2(z))));
    PUT(8, w(__hadd2(b2(x), b2(y))));
    PUT(9, w(__hmul2(b2(x), b2(y))));
    PUT(10, w(__hfma2(b2(x), b2(y), b2(z))));
    PUT(11, w(__hmax2(b2(x), b2(z))));
    PUT(12, w(__hmin2_nan(b2(y), b2(z))));
    PUT(13, w(__hfma2_relu(b2(x), b2(z), b2(y))));
    unsigned m = 0;
    m |= __hbeq2(h2(x), h2(y)) << 0;
    m |= __hblt2(h2(x), h2(y)) << 1;
    m |= __hble2(h2(x), h2(z)) << 2;
    m |= __hbgt2(h2(x), h2(z)) << 3;
    m |= __hbge2(h2(y), h2(z)) << 4;
    m |= __hbne2(h2(x), h2(y)) << 5;
    m |= __hbltu2(h2(x), h2(y)) << 6;
    m |= __hbgeu2(h2(x), h2(z)) << 7;
    m |= __hbneu2(h2(y), h2(z)) << 8;
    m |= __hbgtu2(h2(x), h2(y)) << 9;
    m |= __hbgt2(b2(x), b2(y)) << 10;
    m |= __hbleu2(b2(x), b2(z)) << 11;
    m |= __hisnan(__low2half(h2(x))) << 12;
    PUT(14, m);
    PUT(15, w(__hmax2(h2(y), h2(z))));
    PUT(16, bits(__low2float(h2(x)) + __high2float(h2(y))));
    PUT(17, bits(__low2float(b2(z)) * __high2float(b2(x))));
}
