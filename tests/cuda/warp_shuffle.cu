extern "C" __global__ void warp_shuffle(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = (i < n) ? in[i] : 0;
    int a = __shfl_sync(0xffffffff, v, 3);
    int b = __shfl_up_sync(0xffffffff, v, 1);
    int c = __shfl_down_sync(0xffffffff, v, 2);
    int d = __shfl_xor_sync(0xffffffff, v, 5);
    float f = __shfl_down_sync(0xffffffff, (float)v * 0.5f, 4, 16);
    if (i < n) {
        out[5 * i + 0] = a;
        out[5 * i + 1] = b;
        out[5 * i + 2] = c;
        out[5 * i + 3] = d;
        out[5 * i + 4] = (int)f;
    }
}
