#include "../../include/sass_diff.cuh"

// SHFL.IDX / UP / DOWN / BFLY with widths (segment clamps) and with partial masks (each half-warp
// shuffles within itself), VOTE.ALL / ANY and ballot, MATCH.ANY, REDUX (sum, min, max, and, or,
// xor; signed and unsigned) on full and partial warps.  Every lane reads only lanes of its mask.
#define FULL 0xffffffffu

extern "C" __global__ void s_warp(const unsigned* a, const unsigned* b, unsigned* out, int n) {
    SIMT_SITE(1);                                   // entry (trace variant only)
    int i = SASS_DIFF_TID();
    if (i >= n) return;                              // n is a multiple of 32: whole warps only
    unsigned lane = threadIdx.x & 31u;
    unsigned x = a[i], y = b[i];
    PUT(0, __shfl_sync(FULL, x, y & 31u));
    PUT(1, __shfl_sync(FULL, x, y, 8));              // source index taken within 8-lane segments
    PUT(2, __shfl_up_sync(FULL, x, 3));
    PUT(3, __shfl_up_sync(FULL, x, 5, 16));
    PUT(4, __shfl_down_sync(FULL, x, 7));
    PUT(5, __shfl_down_sync(FULL, x, y & 7u, 8));
    PUT(6, __shfl_xor_sync(FULL, x, 21));
    PUT(7, __shfl_xor_sync(FULL, x, y & 31u, 16));   // partners outside the segment keep their own value
    PUT(8, (unsigned)__all_sync(FULL, x > y));
    PUT(9, (unsigned)__any_sync(FULL, (x & 0xfu) == (y & 0xfu)));
    PUT(10, __ballot_sync(FULL, (int)x < 0));
    PUT(11, __match_any_sync(FULL, x & 3u));
    PUT(12, __reduce_add_sync(FULL, x));
    PUT(13, __reduce_min_sync(FULL, y));
    PUT(14, (unsigned)__reduce_max_sync(FULL, (int)x));
    PUT(15, __reduce_and_sync(FULL, x | y));
    PUT(16, __reduce_or_sync(FULL, x & y));
    PUT(17, __reduce_xor_sync(FULL, x));
    unsigned half = lane < 16 ? 0x0000ffffu : 0xffff0000u;
    if (lane < 16) {                                  // the low half-warp on its own
        PUT(18, __shfl_sync(half, x, y & 15u));
        PUT(19, __shfl_down_sync(half, x, 3, 16));
        PUT(20, __ballot_sync(half, x & 1u));
        PUT(21, __reduce_add_sync(half, x));
        PUT(22, __match_any_sync(half, y & 1u));
        PUT(23, (unsigned)__reduce_min_sync(half, (int)y));
    } else {                                          // the high half-warp
        PUT(18, __shfl_sync(half, y, 16u + (x & 15u)));
        PUT(19, __shfl_xor_sync(half, y, 5, 16));
        PUT(20, (unsigned)__any_sync(half, y == 0u));
        PUT(21, __reduce_max_sync(half, x));
        PUT(22, __match_any_sync(half, x >> 30));
        PUT(23, __reduce_or_sync(half, y >> 3));
    }
}
