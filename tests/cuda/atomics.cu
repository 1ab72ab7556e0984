extern "C" __global__ void atomics(const int* in, int* acc, int* old_out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    atomicAdd(&acc[0], v);
    atomicMin(&acc[1], v);
    atomicMax(&acc[2], v);
    int o = atomicExch(&acc[3], i);
    int c = atomicCAS(&acc[4], i - 1, i);
    int r = atomicAdd(&acc[5], 1);
    unsigned u = atomicAdd((unsigned*)&acc[6], 1u);
    old_out[3 * i + 0] = o;
    old_out[3 * i + 1] = c;
    old_out[3 * i + 2] = r + (int)u;
}
