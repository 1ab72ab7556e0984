extern "C" __global__ void early_return(const int* in, int* out, int n) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= n) return;
    out[tid] = in[tid] * 2 + tid;
}
