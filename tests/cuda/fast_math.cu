// Fast-math intrinsics on the SFU (__sinf, __cosf, __expf, __logf, rsqrtf, __fdividef) and their
// precise counterparts' building blocks (sqrtf, fmaf).
extern "C" __global__ void fast_math(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    float* o = out + 7 * i;
    o[0] = __sinf(v);
    o[1] = __cosf(v);
    o[2] = __expf(v * 0.25f);
    o[3] = __logf(fabsf(v) + 1.0f);
    o[4] = rsqrtf(fabsf(v) + 0.5f);
    o[5] = __fdividef(v, 3.0f);
    o[6] = sqrtf(fmaf(v, v, 1.0f));
}
