// The fusion workloads' tensor-core predictor (programs/include/tc_part.cuh, tc_tiles), its tiles
// timed with their x rows in L2, not L1, with 1 to 16 warps in one block (tools/tc_tile_rate.py).
// Every warp first reads its TILES tiles' x rows past L1 (ld.global.cg), then runs the tiles, and
// lane 0 writes the clock before and after them: times[2w], times[2w + 1].  The _nostg kernels leave out the tile's
// global store of its logits, _nosts its shared store and argmax (the logits go to global memory
// only), to tell which part of the tile's epilogue costs what.
#include "../../programs/include/tc_part.cuh"
#define TILES 8

__device__ __forceinline__ unsigned clock32() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)); return (unsigned)t; }

// tc_tiles with its epilogue's global and shared stores switchable (both on: the same code).
template <bool STG, bool STS>
__device__ __forceinline__ void tiles(const __half* x, float* logits, unsigned* pred, const TcShared& s,
                                      TcWarpShared& ws, int first, int count) {
    using namespace nvcuda;
    const int lane = threadIdx.x & 31;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b1[2], b2[2];
    for (int j = 0; j < 2; j++) {
        wmma::load_matrix_sync(b1[j], s.w1 + 16 * j, TC_HIDDEN);
        wmma::load_matrix_sync(b2[j], s.w2 + 16 * TC_OUT * j, TC_OUT);
    }
    for (int t = first; t < first + count; t++) {
        const int row0 = t * 16;
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
        wmma::load_matrix_sync(a, x + row0 * TC_IN, TC_IN);
        for (int j = 0; j < 2; j++) {
            wmma::fragment<wmma::accumulator, 16, 16, 16, __half> h;
            wmma::fill_fragment(h, __float2half_rn(0.0f));
            wmma::mma_sync(h, a, b1[j], h);
            for (int e = 0; e < h.num_elements; e++)
                h.x[e] = __hgt(h.x[e], __float2half_rn(0.0f)) ? h.x[e] : __float2half_rn(0.0f);
            wmma::store_matrix_sync(ws.hidden + 16 * j, h, TC_HIDDEN, wmma::mem_row_major);
        }
        __syncwarp();
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> o;
        wmma::fill_fragment(o, 0.0f);
        for (int k = 0; k < 2; k++) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> hk;
            wmma::load_matrix_sync(hk, ws.hidden + 16 * k, TC_HIDDEN);
            wmma::mma_sync(o, hk, b2[k], o);
        }
        if (STG) wmma::store_matrix_sync(logits + row0 * TC_OUT, o, TC_OUT, wmma::mem_row_major);
        if (STS) {
            wmma::store_matrix_sync(ws.logits, o, TC_OUT, wmma::mem_row_major);
            __syncwarp();
            if (lane < 16) {
                int best = 0;
                float top = ws.logits[lane * TC_OUT];
                for (int c = 1; c < TC_CLASSES; c++) {
                    float v = ws.logits[lane * TC_OUT + c];
                    if (v > top) { top = v; best = c; }
                }
                pred[row0 + lane] = best;
            }
        }
        __syncwarp();
    }
}

template <bool STG, bool STS>
__device__ __forceinline__ void tile_rate(const __half* x, const float* w1, const float* w2, float* logits,
                                          unsigned* pred, unsigned* times) {
    __shared__ TcShared s;
    __shared__ TcWarpShared ws[16];
    const int warp = threadIdx.x / 32;
    tc_load_weights(w1, w2, s, threadIdx.x, blockDim.x);
    __syncthreads();
    unsigned warm = 0;                                    // x rows into L2 only
    for (int i = threadIdx.x & 31; i < TILES * 16 * TC_IN / 2; i += 32)
        warm ^= __ldcg(reinterpret_cast<const unsigned*>(x + warp * TILES * 16 * TC_IN) + i);
    if (warm == 0x12345678u) pred[0] = warm;              // keeps the reads
    __syncwarp();
    const unsigned t0 = clock32();
    tiles<STG, STS>(x, logits, pred, s, ws[warp], warp * TILES, TILES);
    __syncwarp();
    const unsigned t1 = clock32();
    if ((threadIdx.x & 31) == 0) { times[2 * warp] = t0; times[2 * warp + 1] = t1; }
}

#define RATE(NAME, STG, STS) \
    extern "C" __global__ void __launch_bounds__(512) NAME(const __half* x, const float* w1, const float* w2, \
            float* logits, unsigned* pred, unsigned* times) { tile_rate<STG, STS>(x, w1, w2, logits, pred, times); }
RATE(k_tiles, true, true)
RATE(k_tiles_nostg, false, true)
RATE(k_tiles_nosts, true, false)
