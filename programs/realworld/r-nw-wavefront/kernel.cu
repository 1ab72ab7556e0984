#include "../../include/simt_trace.cuh"

#define L 64
// Score matrix (L+1)^2 in shared memory, row 0 / column 0 = -gap * index; thread t fills row t+1 on each anti-diagonal.
// last[pair * L + j] = score[L][j + 1].
extern "C" __global__ void nw_wavefront(const int* seqa, const int* seqb, int* last, int gap) {
    SIMT_SITE(1);
    __shared__ int sc[L + 1][L + 1];
    int t = threadIdx.x;
    const int* a = seqa + blockIdx.x * L;
    const int* b = seqb + blockIdx.x * L;
    sc[t + 1][0] = -gap * (t + 1);
    sc[0][t + 1] = -gap * (t + 1);
    if (t == 0) sc[0][0] = 0;
    int ai = a[t];
    __syncthreads();
    for (int d = 0; d < 2 * L - 1; ++d) {
        int j = d - t;
        if (j >= 0 && j < L) {
            int m = sc[t][j] + (ai == b[j] ? 5 : -3);
            int up = sc[t][j + 1] - gap;
            int left = sc[t + 1][j] - gap;
            sc[t + 1][j + 1] = max(m, max(up, left));
        }
        __syncthreads();
    }
    last[blockIdx.x * L + t] = sc[L][t + 1];
    SIMT_SITE(2);
}
