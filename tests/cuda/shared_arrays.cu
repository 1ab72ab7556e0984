// Several __shared__ arrays side by side (issue 61: PTX mode stopped with an out-of-bounds fault
// on an access inside the second array): arrays of different types and alignments, read and
// written through indices into the second and third array, a dynamic `extern __shared__`
// array beside static ones (it begins after them), and half-precision atomics on shared arrays
// (atom.add.noftz.f16 / .bf16 / .f16x2 through generic addresses).
#include <cuda_fp16.h>
#include <cuda_bf16.h>
extern "C" __global__ void two_arrays(const int* in, int* out, int n) {
    __shared__ float acc[100];
    __shared__ int hist[37];
    int t = threadIdx.x;
    if (t < 100) acc[t] = 0.5f * t;
    if (t < 37) hist[t] = 0;
    __syncthreads();
    int v = in[blockIdx.x * blockDim.x + t];
    atomicAdd(&hist[(unsigned)v % 37u], 1);
    __syncthreads();
    if (t < 37) out[blockIdx.x * 37 + t] = hist[t] + (int)acc[t + 50];
}

extern "C" __global__ void three_arrays(const int* in, long long* out, int n) {
    __shared__ char tag[13];
    __shared__ double sums[20];
    __shared__ short small[50];
    int t = threadIdx.x;
    if (t < 13) tag[t] = (char)(t * 3);
    if (t < 20) sums[t] = 0.0;
    if (t < 50) small[t] = (short)(-t);
    __syncthreads();
    int v = in[blockIdx.x * blockDim.x + t];
    int k = (unsigned)v % 20u;
    atomicAdd(&sums[k], (double)(v & 0xff));
    __syncthreads();
    if (t < 20)
        out[blockIdx.x * 20 + t] = (long long)sums[t] * 1000 + small[(t * 7) % 50] + tag[t % 13];
}

extern "C" __global__ void with_dynamic(const int* in, int* out, int n) {
    extern __shared__ int dyn[];
    __shared__ unsigned char flags[7];
    __shared__ int fixed[33];
    int t = threadIdx.x;
    if (t < 7) flags[t] = (unsigned char)(1 << t);
    if (t < 33) fixed[t] = t * t;
    dyn[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    int j = (t * 5 + 3) % blockDim.x;
    out[blockIdx.x * blockDim.x + t] = dyn[j] + fixed[t % 33] + flags[t % 7];
}

extern "C" __global__ void half_atomics(const int* in, float* out, int n) {
    __shared__ int first[5];
    __shared__ __half h[4];
    __shared__ __nv_bfloat16 bh[2];
    __shared__ __half2 h2[3];
    int t = threadIdx.x;
    if (t < 5) first[t] = t;
    if (t < 4) h[t] = __int2half_rn(0);
    if (t < 2) bh[t] = __int2bfloat16_rn(0);
    if (t < 3) h2[t] = __halves2half2(__int2half_rn(0), __int2half_rn(0));
    __syncthreads();
    int v = in[blockIdx.x * blockDim.x + t];
    atomicAdd(&h[v & 3], __int2half_rn((v >> 2) & 7));
    atomicAdd(&bh[(v >> 5) & 1], __int2bfloat16_rn(1));
    atomicAdd(&h2[(v >> 6) % 3], __halves2half2(__int2half_rn(1), __int2half_rn((v >> 8) & 3)));
    __syncthreads();
    if (t < 4) out[blockIdx.x * 12 + t] = __half2float(h[t]) + (float)first[t];
    if (t < 2) out[blockIdx.x * 12 + 4 + t] = __bfloat162float(bh[t]);
    if (t < 3) {
        out[blockIdx.x * 12 + 6 + 2 * t] = __low2float(h2[t]);
        out[blockIdx.x * 12 + 7 + 2 * t] = __high2float(h2[t]);
    }
}
