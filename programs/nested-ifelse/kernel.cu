extern "C" __global__ void nested_if(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    int r;
    if (v > 0) {
        if (v > 100) r = 1;
        else if (v % 3 == 0) r = 2;
        else r = 3;
    } else {
        if (v < -50) r = -1;
        else r = v * v;
    }
    out[i] = r;
}
