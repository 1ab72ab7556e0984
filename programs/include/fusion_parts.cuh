// The kernel-fusion workloads (programs/workloads/w-fusion-*, docs/workloads-fusion.md): one tensor-core
// part (the MLP predictor of tc_part.cuh) and one divergent CUDA-core part (cd_unit below), each
// run alone, in one stream, in two streams, and fused inner-thread, inner-block, inter-block and
// with persistent threaded blocks (seed 000 Algorithm 2).  Every variant reads the same inputs and
// writes the same outputs; only the grid, the block and who does which work change.
//
// Sizes: both parts are sized to take comparable time on one H100 (132 SMs, 4 blocks of each part
// per SM), since overlap can only show when neither part dominates.
#pragma once
#include "simt_trace.cuh"
#include "tc_part.cuh"

#define CD_THREADS 128                       // threads of one CD unit (the user kernel's block)
#define CD_BLOCKS 528                        // the user kernel's grid
#define TC_THREADS 128                       // threads of one TC unit (the predictor's block)
#define TC_WARPS (TC_THREADS / 32)
#define TC_BLOCKS 528                        // the predictor's grid
#define TC_TILES_PER_WARP 2                  // 16-row tiles per warp
#define CD_N (CD_BLOCKS * CD_THREADS)        // CD elements
#define TC_ROWS (TC_BLOCKS * TC_WARPS * TC_TILES_PER_WARP * 16)   // predictor rows
#define PTB_BLOCKS 264                       // persistent blocks: 2 per H100 SM

// A part's barrier.  BAR 0: the whole block (__syncthreads, the unfused kernel as written); BAR > 0:
// a named barrier over the part's COUNT threads only (bar.sync BAR, COUNT), so that a part can
// synchronise while the other part of the same block runs on (Algorithm 2, line 6).
template <int BAR, int COUNT>
__device__ __forceinline__ void part_sync() {
    if (BAR == 0)
        __syncthreads();
    else
        asm volatile("bar.sync %0, %1;" :: "n"(BAR), "n"(COUNT) : "memory");
}

struct CdShared {
    unsigned stage[CD_THREADS];
};

// The divergent user kernel, one block's worth (`unit`) with thread `tid` in [0, CD_THREADS):
// stage the unit's inputs in shared memory, read the left neighbour's, then a per-thread
// data-dependent loop (16..79 trips) whose body branches on the running value.
template <int BAR>
__device__ __forceinline__ void cd_unit(const unsigned* in, unsigned* out, CdShared& s, int unit, int tid) {
    SIMT_SITE(2);
    const int i = unit * CD_THREADS + tid;
    s.stage[tid] = in[i];
    part_sync<BAR, CD_THREADS>();
    const unsigned x = s.stage[tid];
    const unsigned left = s.stage[(tid + CD_THREADS - 1) % CD_THREADS];
    part_sync<BAR, CD_THREADS>();                   // the stage is rewritten by the next unit
    unsigned v = x ^ (left << 7), acc = 0;
    const int trips = 16 + (int)(x & 63u);
    for (int k = 0; k < trips; k++) {
        if (v & 1u) {
            v = 3u * v + 1u;
            acc += v >> 5;
        } else {
            v >>= 1;
            acc ^= v * 0x9E3779B9u;
        }
        v ^= (unsigned)k;                           // keeps v from settling into the 4-2-1 cycle
    }
    out[i] = acc ^ v;
}

// The predictor's blocks first, first + step, ... below TC_BLOCKS, run by the part's TC_THREADS
// threads (this one is `tid`); warp `tid / 32` of the part takes its tiles of each block.  The
// weights are converted once, then read only.  The unfused kernel passes (blockIdx.x, TC_BLOCKS):
// one block; the persistent-threaded-block kernel (gridDim.x), looping like Algorithm 2's ptbTCkernel.
template <int BAR>
__device__ __forceinline__ void tc_units(const __half* x, const float* w1, const float* w2, float* logits,
                                         unsigned* pred, TcShared& s, TcWarpShared* ws, int first, int step,
                                         int tid) {
    SIMT_SITE(3);
    tc_load_weights(w1, w2, s, tid, TC_THREADS);
    part_sync<BAR, TC_THREADS>();
    const int warp = tid / 32;
    for (int unit = first; unit < TC_BLOCKS; unit += step)
        tc_tiles(x, logits, pred, s, ws[warp], (unit * TC_WARPS + warp) * TC_TILES_PER_WARP, TC_TILES_PER_WARP);
}

// The user kernel's blocks first, first + step, ... below CD_BLOCKS (see tc_units).
template <int BAR>
__device__ __forceinline__ void cd_units(const unsigned* in, unsigned* out, CdShared& s, int first, int step,
                                         int tid) {
    for (int unit = first; unit < CD_BLOCKS; unit += step)
        cd_unit<BAR>(in, out, s, unit, tid);
}

// Per-block (start, end) clock64 pair at clk[2 * (first + blockIdx.x)], t0 read at the kernel's
// entry; the end is taken after a whole-block barrier, so it is the block's last thread's finish.
__device__ __forceinline__ void clock_pair(long long* clk, int first, long long t0) {
    __syncthreads();
    if (threadIdx.x == 0) {
        clk[2 * (first + blockIdx.x)] = t0;
        clk[2 * (first + blockIdx.x) + 1] = clock64();
    }
}

#define TC_PARAMS const __half* x, const float* w1, const float* w2, float* logits, unsigned* pred
#define CD_PARAMS const unsigned* cd_in, unsigned* cd_out
