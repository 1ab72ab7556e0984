extern "C" __global__ void warp_vote(const int* in, unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = (i < n) ? in[i] : 0;
    unsigned mask = __activemask();
    int any = __any_sync(0xffffffff, v > 5);
    int all = __all_sync(0xffffffff, v != 0);
    unsigned ballot = __ballot_sync(0xffffffff, v & 1);
    if (i < n) {
        out[4 * i + 0] = mask;
        out[4 * i + 1] = any;
        out[4 * i + 2] = all;
        out[4 * i + 3] = ballot;
    }
}
