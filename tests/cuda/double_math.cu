extern "C" __global__ void double_math(const double* a, const double* b, const double* c, double* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double x = a[i], y = b[i], z = c[i];
    double f = fma(x, y, z);
    double d = x / y;
    double s = x * 1.5 - z + 0.25;
    out[3 * i + 0] = f;
    out[3 * i + 1] = d;
    out[3 * i + 2] = s;
}
