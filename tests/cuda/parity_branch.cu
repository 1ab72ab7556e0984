extern "C" __global__ void parity_branch(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    if (threadIdx.x & 1) {
        v = v * 3 + 1;
    } else {
        v = v / 2 - 7;
    }
    out[i] = v;
}
