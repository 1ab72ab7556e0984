#include "../../include/sass_diff.cuh"

// LDG / STG at 8 (unsigned and signed), 16 (unsigned and signed), 32, 64 and 128 bits, LDG.CONSTANT
// (__ldg), LDS / STS at every width between threads of a block, LDL / STL through a local array
// indexed at run time.  Addresses mix neighbouring elements so a wrong byte order shows.
extern "C" __global__ void s_memory(const unsigned* __restrict__ a, const unsigned* __restrict__ b,
                                    unsigned* out, unsigned char* o8, unsigned short* o16,
                                    unsigned long long* o64, uint4* o128, int n) {
    SIMT_SITE(1);                                   // entry (trace variant only)
    __shared__ __align__(16) unsigned sh[256 * 4];
    int i = SASS_DIFF_TID();
    if (i >= n) return;                               // n is a multiple of the 256-thread block
    unsigned t = threadIdx.x;
    unsigned x = a[i], y = b[i];
    const unsigned char* a8 = (const unsigned char*)a;
    const unsigned short* a16 = (const unsigned short*)a;
    unsigned j = (y % (unsigned)n);
    PUT(0, a8[4 * j + (x & 3u)]);
    PUT(1, (unsigned)(int)((const signed char*)a)[4 * j + ((x >> 2) & 3u)]);
    PUT(2, a16[2 * j + (x & 1u)]);
    PUT(3, (unsigned)(int)((const short*)a)[2 * j + ((x >> 1) & 1u)]);
    unsigned long long v64 = ((const unsigned long long*)a)[j / 2];
    PUT(4, (unsigned)v64);
    PUT(5, (unsigned)(v64 >> 32));
    uint4 v128 = ((const uint4*)b)[j / 4];
    PUT(6, v128.x ^ v128.w);
    PUT(7, v128.y + v128.z);
    PUT(8, __ldg(&b[(x ^ y) % (unsigned)n]));
    o8[i] = (unsigned char)(x ^ y);
    o16[i] = (unsigned short)(x + y);
    o64[i] = (unsigned long long)x << 32 | y;
    o128[i] = make_uint4(x, y, x ^ y, x + y);
    // shared memory: every width stored by one thread and read back by another
    sh[4 * t] = x;
    ((unsigned long long*)sh)[2 * t + 1] = (unsigned long long)y << 32 | x;
    ((unsigned char*)sh)[16 * t + 4] = (unsigned char)y;
    ((unsigned char*)sh)[16 * t + 5] = (unsigned char)(x >> 24);   // every byte of the slot is written
    ((unsigned short*)sh)[8 * t + 3] = (unsigned short)(x >> 7);
    __syncthreads();
    unsigned u = (t * 37u + (x & 7u)) & 255u;         // another thread's words
    PUT(9, sh[4 * u]);
    PUT(10, ((unsigned char*)sh)[16 * u + 4 + (y & 3u)]);
    PUT(11, (unsigned)(int)((signed char*)sh)[16 * u + (x & 7u)]);
    PUT(12, ((unsigned short*)sh)[8 * u + (y & 7u)]);
    PUT(13, (unsigned)(int)((short*)sh)[8 * u + 3]);
    unsigned long long s64 = ((unsigned long long*)sh)[2 * u + 1];
    PUT(14, (unsigned)(s64 >> 32) - (unsigned)s64);
    uint4 s128 = ((uint4*)sh)[u];
    PUT(15, s128.x ^ s128.y ^ s128.z ^ s128.w);
    __syncthreads();
    ((uint4*)sh)[t] = make_uint4(y, x, y ^ 0x5555u, x + 3u);
    __syncthreads();
    uint4 r = ((uint4*)sh)[255u - t];
    PUT(16, r.x + r.y * 3u + r.z * 5u + r.w * 7u);
    // a local array indexed at run time lives in local memory (STL / LDL; 64 words is more than
    // ptxas turns into registers)
    unsigned loc[64];
#pragma unroll 1
    for (int k = 0; k < 64; k++) loc[k] = x * (unsigned)k + y;
    loc[y & 63u] ^= x;
    PUT(17, loc[x & 63u]);
    PUT(18, loc[(x >> 6) & 63u] + loc[(y >> 8) & 63u]);
}
