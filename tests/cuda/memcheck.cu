// Kernels with the memory bugs real code has, for simt-sim's memcheck (tests/test_memcheck.py).
// Compiled as the other tests/cuda programs: nvcc -ptx -arch=sm_90 -O3 -lineinfo memcheck.cu

// A 5-point 1D stencil with the left boundary check forgotten (the right one is there): threads
// 0 and 1 of block 0 read in[-2] and in[-1], 8 and 4 bytes before the buffer.
extern "C" __global__ void stencil5(const float* __restrict__ in, float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n - 2) {
        out[i] = 0.1f * in[i - 2] + 0.2f * in[i - 1] + 0.4f * in[i] + 0.2f * in[i + 1] + 0.1f * in[i + 2];
    }
}

// A shift by one with the bound checked on the source only: the last thread writes out[n], just
// past the end of the buffer.
extern "C" __global__ void shift_right(const int* __restrict__ in, int* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i + 1] = in[i] * 3;
    }
}

// A shared-memory tile filled one slot off: the last thread of each block writes tile[64], past
// the array (and the block's shared memory); tile[0] is never written.
extern "C" __global__ void smem_shift(const float* __restrict__ in, float* __restrict__ out)
{
    __shared__ float tile[64];
    int t = threadIdx.x;
    tile[t + 1] = in[blockIdx.x * 64 + t];
    __syncthreads();
    out[blockIdx.x * 64 + t] = tile[t] + 1.0f;
}

// Words read through a byte pointer: thread 5's address is one byte off a word boundary.
extern "C" __global__ void unaligned_word(const char* __restrict__ bytes, int* __restrict__ out)
{
    int t = threadIdx.x;
    out[t] = *(const int*)(bytes + 4 * t + (t == 5 ? 1 : 0));
}
