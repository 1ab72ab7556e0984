extern "C" __global__ void switch4(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    int r;
    switch (v & 3) {
        case 0: r = v + 10; break;
        case 1: r = v * 7; break;
        case 2: r = v ^ 0x5a5a; break;
        default: r = -v; break;
    }
    out[i] = r;
}
