// Inclusive prefix sum of a block: shuffle scan within warps, warp totals through shared memory.
extern "C" __global__ void block_scan(const int* in, int* out, int n) {
    __shared__ int warp_sum[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int v = i < n ? in[i] : 0;
    for (int d = 1; d < 32; d <<= 1) {
        int u = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d) v += u;
    }
    if (lane == 31) warp_sum[warp] = v;
    __syncthreads();
    if (warp == 0) {
        int s = lane < (blockDim.x >> 5) ? warp_sum[lane] : 0;
        for (int d = 1; d < 32; d <<= 1) {
            int u = __shfl_up_sync(0xffffffffu, s, d);
            if (lane >= d) s += u;
        }
        warp_sum[lane] = s;
    }
    __syncthreads();
    if (warp > 0) v += warp_sum[warp - 1];
    if (i < n) out[i] = v;
}
