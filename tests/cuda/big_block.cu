// One 1024-thread block: shared-memory tree reduction (ptxas allocates few registers, so the
// block fits an H100 SM though the PTX declares many virtual registers).
extern "C" __global__ void big_block(const float* in, float* out, int* count, int n) {
    __shared__ float part[1024];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    float v = i < n ? in[i] : 0.0f;
    part[t] = v * v;
    __syncthreads();
    for (int s = 512; s > 0; s >>= 1) {
        if (t < s) part[t] += part[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = part[0];
    if (i < n && v > 0.0f) atomicAdd(count, 1);
}
