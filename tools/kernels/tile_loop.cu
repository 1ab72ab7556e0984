// The SGEMM's shared-memory inner loop alone (tools/tile_loop.py): every warp of one block of W warps
// (warp w is row w of a 32 x 32 tile of A and B in shared memory) multiplies its row of A by every
// column of B, as w-matmul-*'s 32 products per tile: an LDS.128 of A that every lane reads at one
// address (a broadcast) per 4 products, and an LDS.32 of B per product, each feeding an FFMA.
// No global memory: the tiles alternate between two buffers, so that ptxas keeps the loads in the
// loop (ULOP3, which the buffer's choice would take otherwise, is not in isa/sass.yaml).  k_tile_sync adds the matmul's barrier after each tile; k_tile_a and k_tile_b keep only
// the loads of A (broadcast LDS.128) or of B (LDS.32).  k_tile_copy and k_tile_store stage each tile
// from global memory first, as w-matmul-pipeline (cp.async double buffering: LDGSTS, LDGDEPBAR,
// DEPBAR) and w-matmul-plain (LDG, STS, barrier) do, from 8 tiles of A and of B (g: 32 KiB each)
// that stay in L1 after the first pass; k_tile_copy_l2 and k_tile_store_l2 from 64 of each (256 KiB
// each, more than L1 holds beside the tiles: L2 hits, as the matmul's).  k_bar is the barrier alone, once per iteration, and
// k_bar_chain a barrier after a chain of 8 dependent FFMAs.  clk = per-warp [start, end].
#include <cuda_pipeline.h>
#define TILE 32
#define SRC_TILES 8
#define SRC_TILES_L2 64
__device__ __forceinline__ void record_span(long long* clk, long long t0, long long t1) {
    if ((threadIdx.x & 31) == 0) { clk[2 * (threadIdx.x / 32)] = t0; clk[2 * (threadIdx.x / 32) + 1] = t1; }
}

// PART: 0 both tiles, 1 A only, 2 B only
template <int PART, bool SYNC>
__device__ __forceinline__ void tile_loop(long long* clk, float* out, int tiles) {
    __shared__ __align__(16) float sa[2][TILE * TILE], sb[2][TILE * TILE];
    for (int i = threadIdx.x; i < 2 * TILE * TILE; i += blockDim.x) {
        sa[i / (TILE * TILE)][i % (TILE * TILE)] = 1.0f / (i + 1);
        sb[i / (TILE * TILE)][i % (TILE * TILE)] = 1.0f / (i + 2);
    }
    __syncthreads();
    int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
    float acc = 0.0f, c = out[threadIdx.x];
    long long t0 = clock64();
#pragma unroll 1
    for (int t = 0; t < tiles; t++) {
        int buf = (t + (threadIdx.x >> 10)) & 1;    // threadIdx.x >> 10 (0) keeps it off the uniform path
        const float* a = sa[buf];
        const float* b = sb[buf];
#pragma unroll
        for (int j = 0; j < TILE; j++) {
            float x = PART == 2 ? c : a[ty * TILE + j];
            float y = PART == 1 ? c : b[j * TILE + tx];
            acc = __fmaf_rn(x, y, acc);
        }
        if (SYNC) __syncthreads();
    }
    long long t1 = clock64();
    out[threadIdx.x] = acc;
    record_span(clk, t0, t1);
}

// The matmul's staging of tile t from g (A: its first SRC tiles, B: the next), row ty.
template <int SRC>
__device__ __forceinline__ const float* tile_src(const float* g, int t, int matrix) {
    return g + (matrix * SRC + ((t + (threadIdx.x >> 10)) % SRC)) * TILE * TILE;
}

template <bool ASYNC, int SRC>
__device__ __forceinline__ void staged_loop(long long* clk, float* out, const float* g, int tiles) {
    __shared__ __align__(16) float sa[2][TILE * TILE], sb[2][TILE * TILE];
    int tx = threadIdx.x & 31, ty = threadIdx.x >> 5, at = ty * TILE + tx;
    float acc = 0.0f;
    long long t0 = clock64();
    if (ASYNC) {
        __pipeline_memcpy_async(&sa[0][at], tile_src<SRC>(g, 0, 0) + at, sizeof(float));
        __pipeline_memcpy_async(&sb[0][at], tile_src<SRC>(g, 0, 1) + at, sizeof(float));
        __pipeline_commit();
    }
#pragma unroll 1
    for (int t = 0; t < tiles; t++) {
        int buf = ASYNC ? (t + (threadIdx.x >> 10)) & 1 : 0;
        if (ASYNC) {
            if (t + 1 < tiles) {
                __pipeline_memcpy_async(&sa[buf ^ 1][at], tile_src<SRC>(g, t + 1, 0) + at, sizeof(float));
                __pipeline_memcpy_async(&sb[buf ^ 1][at], tile_src<SRC>(g, t + 1, 1) + at, sizeof(float));
            }
            __pipeline_commit();
            __pipeline_wait_prior(1);
        } else {
            sa[0][at] = tile_src<SRC>(g, t, 0)[at];
            sb[0][at] = tile_src<SRC>(g, t, 1)[at];
        }
        __syncthreads();
#pragma unroll
        for (int j = 0; j < TILE; j++) acc = __fmaf_rn(sa[buf][ty * TILE + j], sb[buf][j * TILE + tx], acc);
        __syncthreads();
    }
    long long t1 = clock64();
    out[threadIdx.x] = acc;
    record_span(clk, t0, t1);
}

extern "C" __global__ void __launch_bounds__(1024) k_tile_copy(long long* clk, float* out, const float* g, int tiles) { staged_loop<true, SRC_TILES>(clk, out, g, tiles); }
extern "C" __global__ void __launch_bounds__(1024) k_tile_store(long long* clk, float* out, const float* g, int tiles) { staged_loop<false, SRC_TILES>(clk, out, g, tiles); }
extern "C" __global__ void __launch_bounds__(1024) k_tile_copy_l2(long long* clk, float* out, const float* g, int tiles) { staged_loop<true, SRC_TILES_L2>(clk, out, g, tiles); }
extern "C" __global__ void __launch_bounds__(1024) k_tile_store_l2(long long* clk, float* out, const float* g, int tiles) { staged_loop<false, SRC_TILES_L2>(clk, out, g, tiles); }
extern "C" __global__ void __launch_bounds__(1024) k_tile(long long* clk, float* out, int tiles) { tile_loop<0, false>(clk, out, tiles); }
extern "C" __global__ void __launch_bounds__(1024) k_tile_sync(long long* clk, float* out, int tiles) { tile_loop<0, true>(clk, out, tiles); }
extern "C" __global__ void __launch_bounds__(1024) k_tile_a(long long* clk, float* out, int tiles) { tile_loop<1, false>(clk, out, tiles); }
extern "C" __global__ void __launch_bounds__(1024) k_tile_b(long long* clk, float* out, int tiles) { tile_loop<2, false>(clk, out, tiles); }

// The barrier alone (tiles iterations of __syncthreads), and after a chain of 8 dependent FFMAs.
template <int CHAIN>
__device__ __forceinline__ void barrier_loop(long long* clk, float* out, int tiles) {
    float acc = out[threadIdx.x], c = acc + 1.0f;
    long long t0 = clock64();
#pragma unroll 1
    for (int t = 0; t < tiles; t++) {
#pragma unroll
        for (int j = 0; j < CHAIN; j++) acc = __fmaf_rn(acc, c, c);
        __syncthreads();
    }
    long long t1 = clock64();
    out[threadIdx.x] = acc;
    record_span(clk, t0, t1);
}

extern "C" __global__ void __launch_bounds__(1024) k_bar(long long* clk, float* out, int tiles) { barrier_loop<0>(clk, out, tiles); }
extern "C" __global__ void __launch_bounds__(1024) k_bar_chain(long long* clk, float* out, int tiles) { barrier_loop<8>(clk, out, tiles); }
