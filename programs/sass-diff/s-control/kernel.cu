#include "../../include/sass_diff.cuh"

// CALL / RET (a __noinline__ function), recursion (saved convergence barriers: BMOV), generic
// loads and stores (LD / ST through a pointer whose space the callee cannot know), BAR.SYNC and a
// named barrier with BAR.ARV (producer warps arrive, consumer warps wait), MEMBAR (thread fences),
// WARPSYNC (__syncwarp in divergent code), a shuffle inside a divergent region (WARPSYNC.COLLECTIVE
// / ENDCOLLECTIVE), divergent loops with break (BSSY / BSYNC / BREAK / BRA) and partial-warp EXIT.
__device__ __noinline__ unsigned mix(unsigned* p, unsigned v, unsigned k) {
    p[k & 3u] = v * 2654435761u;                      // generic store
    return p[(k + 1u) & 3u] ^ (v >> 3);               // generic load
}

__device__ __noinline__ unsigned walk(unsigned depth, unsigned seed) {
    if (depth == 0) return seed;
    unsigned r = walk(depth - 1, seed * 1103515245u + 12345u);
    return (seed & 1u) ? r ^ seed : r + depth;
}

extern "C" __global__ void s_control(const unsigned* a, unsigned* out, unsigned* flag, int n) {
    __shared__ unsigned shared_words[4];
    __shared__ unsigned board[256];
    int i = SASS_DIFF_TID();
    unsigned t = threadIdx.x, lane = t & 31u, warp = t >> 5;   // the block is 256 threads
    SIMT_SITE(1);
    unsigned x = a[i];
    unsigned local_words[4] = {x, x + 1u, x + 2u, x + 3u};
    PUT(0, mix(local_words, x, x >> 5));
    if (t < 4) shared_words[t] = t * 7u;
    __syncthreads();
    if (t == 0) PUT(1, mix(shared_words, x, 2u) ^ mix(&flag[blockIdx.x * 4], x, 1u));
    else PUT(1, 0u);
    PUT(2, walk(x & 15u, x));
    // named barrier 1: warps 0-3 write and arrive, warps 4-7 wait and read
    if (warp < 4) {
        board[t] = x ^ 0xa5a5a5a5u;
        __threadfence_block();
        asm volatile("bar.arrive 1, 256;" ::: "memory");
        PUT(3, 0u);
    } else {
        asm volatile("bar.sync 1, 256;" ::: "memory");
        PUT(3, board[t - 128] + board[(t * 3u) & 127u]);
    }
    __threadfence();
    // a divergent loop with a data-dependent break
    // (the lanes still looping run each iteration together: __activemask() inside the loop makes
    // ptxas keep the loop in a convergence region left by BREAK)
    unsigned v = x, steps = 0, seen = 0;
    while (v != 1u && steps < 64u) {
        SIMT_SITE(2);
        v = (v & 1u) ? 3u * v + 1u : v >> 1;
        steps++;
        seen ^= __activemask() * steps;
        if (v == 0u) break;
    }
    SIMT_SITE(3);
    // a loop with a data-dependent trip count: ptxas unrolls it by 4 inside nested convergence
    // regions and leaves them with BREAK
    unsigned trips = x & 63u, sq = 0;
    for (unsigned k = 0; k < trips; k++) sq += k * k + x;
    PUT(9, sq);
    PUT(4, steps);
    PUT(8, seen);
    // __syncwarp inside divergent code, and a shuffle in a region only some warps enter
    if (x & 1u) {
        SIMT_SITE(4);
        __syncwarp(__activemask());
        PUT(5, 1u);
    } else {
        SIMT_SITE(5);
        PUT(5, 2u);
    }
    unsigned chosen = a[blockIdx.x * blockDim.x] >> 29;   // one warp of each block, chosen by data
    if (warp == chosen) {
        unsigned s = x;
        for (int d = 1; d < 32; d <<= 1) {
            unsigned u = __shfl_up_sync(0xffffffffu, s, d);
            if (lane >= (unsigned)d) s += u;
        }
        PUT(6, s);
    } else {
        PUT(6, 0u);
    }
    __threadfence_system();
    if ((x % 7u) == 0u) return;                      // partial-warp exit
    SIMT_SITE(6);
    PUT(7, x * 3u);
}
