extern "C" __global__ void int_math(const int* a, const int* b, const unsigned* ua, const unsigned* ub, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i], y = b[i];
    unsigned ux = ua[i], uy = ub[i];
    out[6 * i + 0] = x / y;
    out[6 * i + 1] = x % y;
    out[6 * i + 2] = (int)(ux / uy);
    out[6 * i + 3] = (int)(ux % uy);
    out[6 * i + 4] = (int)__umulhi(ux, uy);
    out[6 * i + 5] = __mulhi(x, y) + (x >> 3) + (int)(ux >> 5) + x / 7;
}
