extern "C" __global__ void float_math(const float* a, const float* b, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i], y = b[i];
    out[8 * i + 0] = sqrtf(fabsf(x));
    out[8 * i + 1] = x / y;
    out[8 * i + 2] = __sinf(x);
    out[8 * i + 3] = __expf(y);
    out[8 * i + 4] = rsqrtf(fabsf(y) + 1.0f);
    out[8 * i + 5] = fminf(x, y);
    out[8 * i + 6] = fmaxf(x, y);
    out[8 * i + 7] = fabsf(x - y) * -2.5f;
}
