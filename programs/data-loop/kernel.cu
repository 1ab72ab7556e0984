extern "C" __global__ void while_loop(const int* trips, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int t = trips[i];
    int acc = 0, k = 0;
    while (k < t) {
        acc += k * k + i;
        k++;
    }
    out[i] = acc;
}
