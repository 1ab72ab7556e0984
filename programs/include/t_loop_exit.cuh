// t-loop-exit-*: the order in which lanes leaving a data-dependent loop run on (s-control showed the
// H100 letting them past the loop's BSYNC before the loop ends).  Each lane runs the Collatz steps of
// its value, at most 48; with T_LOOP_VOTE the loop also reads __activemask(), with T_LOOP_BREAK it
// has a second exit (taken when v becomes 0), as s-control's loop has both; with T_LOOP_YIELD the
// kernel first calls a recursive function, which makes ptxas put a YIELD at the loop's head (as
// in s-control, whose other loops have none); with T_LOOP_SHFL a full-warp shuffle follows the loop
// (lanes that ran ahead wait there for the rest, as in s-control's chosen warp).
// Sites: 1 entry, 2 each iteration, 3 after the loop, 4 after the store.  out[i] = steps (and the
// vote's xor).  Values 1 (no iteration) and powers of two (few) make lanes leave at every test.
#pragma once
#include "simt_trace.cuh"

#ifndef T_LOOP_YIELD
#define T_LOOP_YIELD 0
#endif
#ifndef T_LOOP_SHFL
#define T_LOOP_SHFL 0
#endif

#if T_LOOP_YIELD
__device__ __noinline__ unsigned t_loop_walk(unsigned depth, unsigned seed) {
    if (depth == 0) return seed;
    return t_loop_walk(depth - 1, seed * 1103515245u + 12345u) ^ depth;
}
#endif

extern "C" __global__ void loop_exit(const unsigned* a, unsigned* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    SIMT_SITE(1);
    unsigned v = a[i], steps = 0, seen = 0;
#if T_LOOP_YIELD
    v = t_loop_walk(blockIdx.x, v);                 // grid 1: depth 0, v unchanged
#endif
    while (v != 1u && steps < 48u) {
        SIMT_SITE(2);
        v = (v & 1u) ? 3u * v + 1u : v >> 1;
        steps++;
#if T_LOOP_VOTE
        seen ^= __activemask() * steps;
#endif
#if T_LOOP_BREAK
        if (v == 0u) break;                         // the loop's second exit
#endif
    }
    SIMT_SITE(3);
#if T_LOOP_SHFL
    seen ^= __shfl_sync(0xffffffffu, steps, (threadIdx.x + 1u) & 31u) << 16;
#endif
    out[i] = steps ^ (seen << 8);
    SIMT_SITE(4);
}
