#include <cuda_pipeline.h>
#include "../../include/sass_diff.cuh"

// LDGSTS (cp.async global -> shared at 4, 8 and 16 bytes, and with zero fill), LDGDEPBAR (commit)
// and DEPBAR.LE (wait for all but the newest groups): three groups in flight, consumed in order.
extern "C" __global__ void s_async(const unsigned* a, const unsigned* b, const unsigned* c,
                                   unsigned* out, int n) {
    SIMT_SITE(1);                                   // entry (trace variant only)
    __shared__ __align__(16) unsigned sa[128 * 4];
    __shared__ __align__(16) unsigned sb[128 * 2];
    __shared__ __align__(16) unsigned sc[128];
    __shared__ __align__(16) unsigned sz[128 * 4];
    int i = SASS_DIFF_TID();
    unsigned t = threadIdx.x;                         // the block is 128 threads
    __pipeline_memcpy_async(&sa[4 * t], &a[4 * i], 16);
    __pipeline_commit();
    __pipeline_memcpy_async(&sb[2 * t], &b[2 * i], 8);
    __pipeline_commit();
    __pipeline_memcpy_async(&sc[t], &c[i], 4);
    __pipeline_memcpy_async(&sz[4 * t], &a[4 * i], 16, 8 * (t & 1));   // odd threads: upper 8 bytes zero
    __pipeline_commit();
    __pipeline_wait_prior(2);                         // the 16-byte group has landed
    __syncthreads();
    unsigned u = (t * 5u + 3u) & 127u;
    PUT(0, sa[4 * u]);
    PUT(1, sa[4 * u + 1]);
    PUT(2, sa[4 * u + 2] ^ sa[4 * u + 3]);
    __pipeline_wait_prior(1);
    __syncthreads();
    PUT(3, sb[2 * u] + sb[2 * u + 1]);
    __pipeline_wait_prior(0);
    __syncthreads();
    PUT(4, sc[u]);
    PUT(5, sz[4 * u + 2]);
    PUT(6, sz[4 * u + 3] + sz[4 * u]);
}
