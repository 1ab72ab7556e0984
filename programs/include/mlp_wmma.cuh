// Seed 000 (Pang et al., DAC '24, "Control Flow Divergence Optimization by Exploiting Tensor
// Cores"), Section 3: the branch-prediction MLP run on the tensor cores.  A two-layer network
// (the paper's shapes 16x32x10 for GDT and 10x32x28 for CUDA-EC) predicts, for each user-kernel
// thread, which path class it will take; the host then regroups the inputs (Algorithm 1,
// simt_sim/workloads/regroup.py).
//
// One warp evaluates 16 rows (16 threads' feature vectors) at a time with nvcuda::wmma m16n16k16:
//   hidden = relu(X * W1 + b1)        X: 16 x K_IN f16, W1: K_IN x HIDDEN f16, f32 accumulate
//   logits = hidden_f16 * W2 + b2     W2: HIDDEN x K_OUT f16, f32 accumulate
//   class  = argmax over the first n_classes logits (the lowest index on a tie)
// K_IN, HIDDEN and K_OUT are multiples of 16: the host pads 10 inputs to 16 and 28 (or 10) outputs
// to 32 (or 16) with zero weights.  All matrices are row-major; the f16 operands are passed as
// their bit patterns (unsigned short buffers) so that a manifest can hold them.
//
// Rounding, which the numpy reference (simt_sim/workloads/regroup.py: mlp_infer) repeats exactly:
// the products are summed by the tensor core in f32; b1 is added in f32 (`__fadd_rn`, never
// contracted into an FMA), ReLU, then rounded to f16 (round to nearest even) for layer 2; b2 is
// added to the f32 layer-2 sums with `__fadd_rn`.
//
// The wmma fragment layouts are opaque, so the accumulator is stored to a per-warp shared scratch
// tile and the element-wise work (bias, ReLU, argmax) reads it from there.  Every lane of the warp
// must call mlp_wmma_tile (tensor-core instructions are warp-wide).
#pragma once
#include <cuda_fp16.h>
#include <mma.h>

// Per-warp shared scratch: the f16 hidden layer and the f32 accumulator tiles.
template <int K_IN, int HIDDEN, int K_OUT>
struct MlpWmmaScratch {
    static_assert(K_IN % 16 == 0 && HIDDEN % 16 == 0 && K_OUT % 16 == 0, "dimensions are multiples of 16");
    __align__(32) __half hidden[16 * HIDDEN];                   // wmma needs 256-bit aligned tiles
    __align__(32) float acc[16 * (HIDDEN > K_OUT ? HIDDEN : K_OUT)];
};

// The network's parameters in global memory (f16 weights as bit patterns, f32 biases).
struct MlpWeights {
    const unsigned short* w1;   // K_IN x HIDDEN, row-major
    const float* b1;            // HIDDEN
    const unsigned short* w2;   // HIDDEN x K_OUT, row-major
    const float* b2;            // K_OUT (only the first n_classes are used)
    int n_classes;
};

// acc (16 x N f32, row-major, stride N) = A (16 x K, stride lda) * B (K x N, stride ldb), in
// 16 x 16 output tiles; B is a global or shared f16 matrix, A likewise.
template <int K, int N>
__device__ __forceinline__ void mlp_wmma_gemm(const __half* a, int lda, const __half* b, float* acc) {
    using namespace nvcuda;
#pragma unroll
    for (int n0 = 0; n0 < N; n0 += 16) {
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
        wmma::fill_fragment(c, 0.0f);
#pragma unroll
        for (int k0 = 0; k0 < K; k0 += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
            wmma::load_matrix_sync(fa, a + k0, lda);
            wmma::load_matrix_sync(fb, b + k0 * N + n0, N);
            wmma::mma_sync(c, fa, fb, c);
        }
        wmma::store_matrix_sync(acc + n0, c, N, wmma::mem_row_major);
    }
}

// Predicted classes of 16 consecutive rows of X (16 x K_IN f16 bit patterns, row-major).
// Lane r < 16 returns row r's class; lanes 16..31 return -1.
template <int K_IN, int HIDDEN, int K_OUT>
__device__ int mlp_wmma_tile(const unsigned short* x, const MlpWeights& w,
                             MlpWmmaScratch<K_IN, HIDDEN, K_OUT>& s) {
    const int lane = threadIdx.x % 32;
    mlp_wmma_gemm<K_IN, HIDDEN>(reinterpret_cast<const __half*>(x), K_IN,
                                reinterpret_cast<const __half*>(w.w1), s.acc);
    __syncwarp();
    for (int e = lane; e < 16 * HIDDEN; e += 32) {           // bias, ReLU, round to f16
        const float v = __fadd_rn(s.acc[e], w.b1[e % HIDDEN]);
        s.hidden[e] = __float2half_rn(v > 0.0f ? v : 0.0f);
    }
    __syncwarp();
    mlp_wmma_gemm<HIDDEN, K_OUT>(s.hidden, HIDDEN, reinterpret_cast<const __half*>(w.w2), s.acc);
    __syncwarp();
    int best = -1;
    if (lane < 16) {
        float best_logit = 0.0f;
        for (int c = 0; c < w.n_classes; c++) {
            const float logit = __fadd_rn(s.acc[lane * K_OUT + c], w.b2[c]);
            if (best < 0 || logit > best_logit) {
                best = c;
                best_logit = logit;
            }
        }
    }
    __syncwarp();                                              // scratch reused by the next tile
    return best;
}

// Grid-stride over 16-row tiles: warp w of the grid takes tiles w, w + warps, ... ; rows beyond
// n_rows (the last tile's padding) are computed but not written.  x holds ceil(n_rows/16)*16 rows.
template <int K_IN, int HIDDEN, int K_OUT>
__device__ void mlp_wmma_predict(const unsigned short* x, int n_rows, const MlpWeights& w,
                                 MlpWmmaScratch<K_IN, HIDDEN, K_OUT>& s, unsigned int* classes,
                                 int warp, int warps) {
    const int lane = threadIdx.x % 32;
    const int tiles = (n_rows + 15) / 16;
    for (int t = warp; t < tiles; t += warps) {
        const int c = mlp_wmma_tile<K_IN, HIDDEN, K_OUT>(x + t * 16 * K_IN, w, s);
        const int row = t * 16 + lane;
        if (lane < 16 && row < n_rows) classes[row] = (unsigned int)c;
    }
}
