// extern __shared__: dynamic shared memory sized at launch (blockDim.x ints): reverse each block.
extern "C" __global__ void dyn_shared(const int* in, int* out, int n) {
    extern __shared__ int tile[];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    tile[t] = i < n ? in[i] : -1;
    __syncthreads();
    int j = blockIdx.x * blockDim.x + (blockDim.x - 1 - t);
    if (j < n) out[j] = tile[t] * 3;
}
