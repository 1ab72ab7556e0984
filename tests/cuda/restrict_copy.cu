extern "C" __global__ void restrict_copy(const float* __restrict__ in, float* __restrict__ out, const int* __restrict__ idx, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = in[idx[i]] * 2.0f + __ldg(&in[i]);
}
