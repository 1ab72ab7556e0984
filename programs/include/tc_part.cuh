// The tensor-core part of the kernel-fusion workloads (seed 000 Algorithm 2, seed 004): a small MLP
// branch predictor, 16 inputs x 32 hidden (ReLU) x 10 classes (padded to 16 columns), run with
// f16 WMMA m16n16k16 on tiles of 16 rows, as in seed 000's GDT predictor (16 x 32 x 10).
//
//   hidden = relu(x * W1)        x: rows x 16 f16, W1: 16 x 32, f16 accumulation
//   logits = hidden * W2         W2: 32 x 16 (columns >= TC_CLASSES are zero), f32 accumulation
//   pred   = argmax(logits[0:TC_CLASSES]) per row (first maximum)
//
// One warp handles one 16-row tile at a time.  The weights arrive as f32 and are converted to f16
// once per block into shared memory by all the part's threads, which is why the part needs a
// barrier over its own threads (a named barrier when it shares the block with another part).
#pragma once
#include <cuda_fp16.h>
#include <mma.h>

#define TC_IN 16
#define TC_HIDDEN 32
#define TC_OUT 16            // columns of W2 and of the logits (a WMMA tile)
#define TC_CLASSES 10        // the predictor's classes; columns 10..15 of W2 are zero

struct TcShared {
    __half w1[TC_IN * TC_HIDDEN];                  // 16 x 32, row-major
    __half w2[TC_HIDDEN * TC_OUT];                 // 32 x 16, row-major
};

struct TcWarpShared {
    __half hidden[16 * TC_HIDDEN];                 // one tile's hidden layer, 16 x 32 row-major
    float logits[16 * TC_OUT];                     // one tile's logits, for the argmax
};

// Weights f32 -> f16 in shared memory, by `threads` threads (tid in [0, threads)); the caller
// synchronises those threads before any warp loads a fragment from them.
__device__ __forceinline__ void tc_load_weights(const float* w1, const float* w2, TcShared& s,
                                                int tid, int threads) {
    for (int i = tid; i < TC_IN * TC_HIDDEN; i += threads) {
        s.w1[i] = __float2half_rn(w1[i]);
        s.w2[i] = (i % TC_OUT) < TC_CLASSES ? __float2half_rn(w2[i]) : __float2half_rn(0.0f);
    }
}

// One warp: tiles [first, first + count) of 16 rows each.
__device__ __forceinline__ void tc_tiles(const __half* x, float* logits, unsigned* pred, const TcShared& s,
                                         TcWarpShared& ws, int first, int count) {
    using namespace nvcuda;
    const int lane = threadIdx.x & 31;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b1[2], b2[2];
    for (int j = 0; j < 2; j++) {
        wmma::load_matrix_sync(b1[j], s.w1 + 16 * j, TC_HIDDEN);          // W1 columns 16j..16j+15
        wmma::load_matrix_sync(b2[j], s.w2 + 16 * TC_OUT * j, TC_OUT);    // W2 rows 16j..16j+15
    }
    for (int t = first; t < first + count; t++) {
        const int row0 = t * 16;
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
        wmma::load_matrix_sync(a, x + row0 * TC_IN, TC_IN);
        for (int j = 0; j < 2; j++) {
            wmma::fragment<wmma::accumulator, 16, 16, 16, __half> h;
            wmma::fill_fragment(h, __float2half_rn(0.0f));
            wmma::mma_sync(h, a, b1[j], h);
            for (int e = 0; e < h.num_elements; e++)                      // ReLU, element-wise
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
        wmma::store_matrix_sync(logits + row0 * TC_OUT, o, TC_OUT, wmma::mem_row_major);
        wmma::store_matrix_sync(ws.logits, o, TC_OUT, wmma::mem_row_major);
        __syncwarp();
        if (lane < 16) {                                                  // lane r: row r's class
            int best = 0;
            float top = ws.logits[lane * TC_OUT];
            for (int c = 1; c < TC_CLASSES; c++) {
                float v = ws.logits[lane * TC_OUT + c];
                if (v > top) { top = v; best = c; }
            }
            pred[row0 + lane] = best;
        }
        __syncwarp();
    }
}
