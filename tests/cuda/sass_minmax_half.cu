// fmin/fmax on doubles (ptxas: DSETP.MIN/MAX + selects), half absolute values and division
// (|x|.H0_H0 operands of HSETP2 / HADD2 / HFMA2 / HMNMX2), half min/max of three (VHMNMX), and
// float-to-int / float conversions of a float constant.
#include <cuda_fp16.h>
extern "C" __global__ void sass_minmax_half(const double* da, const double* db, const unsigned short* ha,
                                            const unsigned short* hb, const float* fa, double* dout,
                                            unsigned short* hout, int* iout, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double x = da[i], y = db[i];
    dout[4 * i + 0] = fmin(x, y);
    dout[4 * i + 1] = fmax(x, y);
    dout[4 * i + 2] = fmax(fmin(x, 2.5), -1.0);
    dout[4 * i + 3] = fmin(x * y, fabs(y));
    __half p = __ushort_as_half(ha[i]), q = __ushort_as_half(hb[i]);
    hout[6 * i + 0] = __half_as_ushort(__habs(p));
    hout[6 * i + 1] = __half_as_ushort(__hdiv(p, q));
    hout[6 * i + 2] = __half_as_ushort(__hmax(__habs(p), q));
    hout[6 * i + 3] = __half_as_ushort(__hmin(__hmin(p, q), __habs(q)));
    hout[6 * i + 4] = __hgt(__habs(p), __habs(q)) ? 1 : 0;
    hout[6 * i + 5] = __half_as_ushort(__hadd(__habs(p), q));
    float v = fa[i];
    iout[2 * i + 0] = (int)fminf(v, 1e9f);
    iout[2 * i + 1] = __float2int_rn(v > 0 ? v : 3.75f);
}
