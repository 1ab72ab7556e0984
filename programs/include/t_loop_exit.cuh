// t-loop-exit-*: the order in which lanes leaving a data-dependent loop run on (s-control showed the
// H100 letting them past the loop's BSYNC before the loop ends).  Each lane runs the Collatz steps of
// its value, at most 48; with T_LOOP_VOTE the loop also reads __activemask(), with T_LOOP_BREAK it
// has a second (never taken) exit, as s-control's loop has both.
// Sites: 1 entry, 2 each iteration, 3 after the loop, 4 after the store.  out[i] = steps (and the
// vote's xor).  Values 1 (no iteration) and powers of two (few) make lanes leave at every test.
#pragma once
#include "simt_trace.cuh"

extern "C" __global__ void loop_exit(const unsigned* a, unsigned* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    SIMT_SITE(1);
    unsigned v = a[i], steps = 0, seen = 0;
    while (v != 1u && steps < 48u) {
        SIMT_SITE(2);
        v = (v & 1u) ? 3u * v + 1u : v >> 1;
        steps++;
#if T_LOOP_VOTE
        seen ^= __activemask() * steps;
#endif
#if T_LOOP_BREAK
        if (v == 0u) break;                         // never taken; gives the loop a second exit
#endif
    }
    SIMT_SITE(3);
    out[i] = steps ^ (seen << 8);
    SIMT_SITE(4);
}
