// A grid-stride loop over 64-bit indices (size_t), as library code writes it.
extern "C" __global__ void grid_stride(const double* x, double* y, double a, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i] * 0.5;
}
