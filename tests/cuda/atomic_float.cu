// Float and double atomics: atomicAdd on float / double (a histogram of weights), atomicExch on
// float, and a 64-bit compare-and-swap loop (atomicMax on double, as CUDA code writes it).
__device__ double atomic_max_double(double* addr, double v) {
    unsigned long long* p = (unsigned long long*)addr;
    unsigned long long old = *p, assumed;
    do {
        assumed = old;
        if (__longlong_as_double(assumed) >= v) break;
        old = atomicCAS(p, assumed, __double_as_longlong(v));
    } while (old != assumed);
    return __longlong_as_double(old);
}

extern "C" __global__ void atomic_float(const int* bin, const float* w, const double* wd, float* hist,
                                        double* hist_d, float* last, double* maxd, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    atomicAdd(&hist[bin[i]], w[i]);
    atomicAdd(&hist_d[bin[i]], wd[i]);
    atomicExch(&last[bin[i] & 1], 1.0f);
    atomic_max_double(&maxd[bin[i]], wd[i]);
}
