// A histogram of hashed keys: each thread hashes keys of `in` (a grid-stride loop) and counts
// them in its block's 16 bins in shared memory; the block then adds its bins to `bins` in global
// memory.  The tutorial that runs it: docs/first-kernel.md.
__global__ void hist(const unsigned *in, unsigned *bins, int n) {
    __shared__ unsigned counts[16];
    if (threadIdx.x < 16) counts[threadIdx.x] = 0;       // 16 threads of warp 0: a divergent branch
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        unsigned v = in[i];
        for (int k = 0; k < 8; k++) v = (v ^ (v >> 15)) * 2654435761u;    // arithmetic for the schedulers
        atomicAdd(&counts[v % 16], 1u);
    }
    __syncthreads();
    if (threadIdx.x < 16) atomicAdd(&bins[threadIdx.x], counts[threadIdx.x]);
}
