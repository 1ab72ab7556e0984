#include "../../include/sass_diff.cuh"

// The uniform datapath: block-uniform arithmetic on blockIdx and kernel arguments (S2UR, UIMAD,
// UIADD3, ULEA, USHF, UMOV, ULDC), loops bounded by a kernel argument with block-uniform addresses
// (UIMAD), a constant-trip loop whose counter lives in a uniform register (UISETP), a warp-uniform
// value moved into a uniform register (R2UR), and warp-aggregated atomics on one address
// (VOTEU.ANY, UFLO, POPC) whose final counts are order-independent.  No early exit: the grid is
// exactly n threads (a power of two, at most 1024), so control flow stays uniform.
extern "C" __global__ void s_uniform(const unsigned* a, unsigned* out, unsigned* count, int n, int rounds,
                                     int stride, unsigned salt) {
    SIMT_SITE(1);                                   // entry (trace variant only)
    __shared__ unsigned table[1024];
    int i = SASS_DIFF_TID();
    // blockIdx.x appears only in the first loop: used in vector arithmetic as well, ptxas keeps it
    // in a vector register and the loop's uniform multiply (UIMAD) disappears
    unsigned bx = (unsigned)i >> 7;                   // the block is 128 threads
    // trip count and row address are the same for the whole block (the manifest's arguments keep
    // (bx * stride + k * salt) * 16 + 7 below n)
    unsigned long long sum = 0;
#pragma unroll 1
    for (int k = 0; k < rounds; k++) {
        const unsigned* row = a + (blockIdx.x * stride + k * salt) * 16u;
        sum += row[threadIdx.x & 7u] ^ k;
    }
    PUT(0, (unsigned)sum ^ (unsigned)(sum >> 32));
    // the counter k only offsets a shared address: it lives in a uniform register
    for (unsigned e = threadIdx.x; e < 1024u; e += blockDim.x) table[e] = a[e & (unsigned)(n - 1)];
    __syncthreads();
    unsigned lane = threadIdx.x & 31u, tsum = 0;
#pragma unroll 8
    for (unsigned k = 0; k < 64u; k++) tsum += table[(lane * 3u + k + (tsum & 0u)) & 1023u];
    PUT(1, tsum);
    unsigned base = bx * 0x9e3779b9u + (bx << 7) + (salt >> 3) + (unsigned)rounds * (unsigned)stride;
    unsigned long long wide = (unsigned long long)bx * salt + ((unsigned long long)salt << 20);
    PUT(2, base ^ (unsigned)wide ^ (unsigned)(wide >> 32));
    unsigned acc = base;
    for (int r = 0; r < rounds; r++)
        acc = acc * 31u + a[(i + r * stride) & (n - 1)];
    PUT(3, acc);
    unsigned lead = __shfl_sync(0xffffffffu, a[i], 0) & (unsigned)(n - 1);
    PUT(4, a[lead] + a[(lead + 1) & (n - 1)]);
    unsigned x = a[i];
    if (x & 1u) atomicAdd(&count[0], 1u);                       // aggregated per warp
    atomicAdd(&count[1 + bx], x & 0xffu);
    atomicOr(&count[8], x & 0x0f0f0f0fu);
    PUT(5, __activemask());
}
