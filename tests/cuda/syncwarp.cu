// __syncwarp (bar.warp.sync) between warp-level exchanges through shared memory.
extern "C" __global__ void syncwarp(const int* in, int* out, int n) {
    __shared__ int buf[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    int lane = t & 31;
    buf[t] = i < n ? in[i] : 0;
    __syncwarp();
    int v = buf[(t & ~31) | ((lane + 1) & 31)];
    __syncwarp(0xffffffff);
    buf[t] = v * 2 + lane;
    __syncwarp();
    if (i < n) out[i] = buf[(t & ~31) | (31 - lane)];
}
