// Shared-memory atomics as CUDA code writes them: the histogram idiom atomicAdd(&bins[b], 1) with
// the result unused (ptxas: ATOMS.POPC.INC.32), the same with the old value used, float and double
// atomicAdd on shared memory (ptxas: an ATOMS.CAST.SPIN compare-and-store loop), 64-bit integer
// add / min / max / exch / CAS on shared memory, each block's bins written out at the end.
#include <climits>
extern "C" __global__ void sass_shared_atomics(const unsigned* in, unsigned* bins_out, unsigned* ticket,
                                               float* fsum, double* dsum, unsigned long long* lsum,
                                               long long* lmin, long long* lmax, unsigned long long* lx,
                                               float* fx, int n) {
    __shared__ unsigned bins[64];
    __shared__ unsigned cnt[4];
    __shared__ float fb[16];
    __shared__ double db[16];
    __shared__ unsigned long long lb[16];
    __shared__ long long mn[8];
    __shared__ long long mx[8];
    __shared__ unsigned long long xb[4];
    __shared__ float fe[4];
    int t = threadIdx.x;
    for (int k = t; k < 64; k += blockDim.x) bins[k] = 0;
    if (t < 16) { fb[t] = 0.0f; db[t] = 0.0; lb[t] = 0; }
    if (t < 8) { mn[t] = LLONG_MAX; mx[t] = LLONG_MIN; }
    if (t < 4) { cnt[t] = 0; xb[t] = 0; fe[t] = 0.0f; }
    __syncthreads();
    int i = blockIdx.x * blockDim.x + t;
    if (i < n) {
        unsigned v = in[i];
        atomicAdd(&bins[v & 63], 1);                                  // result unused
        unsigned before = atomicAdd(&cnt[(v >> 6) & 3], 1u);          // result used
        ticket[i] = before < 1000000u ? 1u : 0u;                      // order-free use of it
        atomicAdd(&fb[(v >> 8) & 15], (float)(v >> 20) * 0.25f);      // exact sums: any order
        atomicAdd(&db[(v >> 12) & 15], (double)(v >> 4) * 0.5);
        atomicAdd(&lb[(v >> 16) & 15], (unsigned long long)v << 24);
        long long s = (long long)v * ((v & 1) ? -3 : 5);
        atomicMin(&mn[(v >> 3) & 7], s);
        atomicMax(&mx[(v >> 5) & 7], s);
        atomicOr(&xb[(v >> 2) & 3], 1ull << (v % 64));
        atomicExch(&fe[v & 3], 2.5f);
    }
    __syncthreads();
    for (int k = t; k < 64; k += blockDim.x) bins_out[blockIdx.x * 64 + k] = bins[k];
    if (t < 16) {
        fsum[blockIdx.x * 16 + t] = fb[t];
        dsum[blockIdx.x * 16 + t] = db[t];
        lsum[blockIdx.x * 16 + t] = lb[t];
    }
    if (t < 8) { lmin[blockIdx.x * 8 + t] = mn[t]; lmax[blockIdx.x * 8 + t] = mx[t]; }
    if (t < 4) { lx[blockIdx.x * 4 + t] = xb[t]; fx[blockIdx.x * 8 + t] = fe[t]; fx[blockIdx.x * 8 + 4 + t] = (float)cnt[t]; }
}
