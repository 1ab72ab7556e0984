// w-regroup-predictor: seed 000's branch-prediction MLP on the tensor cores (../include/mlp_wmma.cuh),
// in the paper's two shapes: 16x32x10 (GDT-like decision tree, w-regroup-tree-*) and 10x32x28
// (CUDA-EC-like read correction, w-regroup-ec-*; 10 inputs padded to 16, 28 outputs to 32).
// Each warp predicts 16 rows per tile, tiles grid-strided over the warps of the grid;
// classes[row] = the predicted path class.  clk[2*b], clk[2*b+1]: clock64() at block b's start and end.
#include "../../include/mlp_wmma.cuh"
#include "../../include/simt_trace.cuh"

#define PREDICTOR_WARPS 4   // block = 128 threads

template <int K_IN, int HIDDEN, int K_OUT>
__device__ void predict_block(const unsigned short* x, int n_rows, const MlpWeights& w, unsigned int* classes,
                              long long* clk) {
    __shared__ MlpWmmaScratch<K_IN, HIDDEN, K_OUT> scratch[PREDICTOR_WARPS];
    SIMT_SITE(1);                                   // entry
    __syncthreads();
    const long long t0 = clock64();
    const int warp_in_block = threadIdx.x / 32;
    mlp_wmma_predict<K_IN, HIDDEN, K_OUT>(x, n_rows, w, scratch[warp_in_block], classes,
                                         blockIdx.x * PREDICTOR_WARPS + warp_in_block, gridDim.x * PREDICTOR_WARPS);
    __syncthreads();
    if (threadIdx.x == 0) {
        SIMT_SITE(2);                               // thread 0 records the block span
        clk[2 * blockIdx.x] = t0;
        clk[2 * blockIdx.x + 1] = clock64();
    }
}

extern "C" __global__ void mlp_predict_16x32x10(const unsigned short* x, int n_rows, const unsigned short* w1,
                                                const float* b1, const unsigned short* w2, const float* b2,
                                                int n_classes, unsigned int* classes, long long* clk) {
    const MlpWeights w{w1, b1, w2, b2, n_classes};
    predict_block<16, 32, 16>(x, n_rows, w, classes, clk);
}

extern "C" __global__ void mlp_predict_10x32x28(const unsigned short* x, int n_rows, const unsigned short* w1,
                                                const float* b1, const unsigned short* w2, const float* b2,
                                                int n_classes, unsigned int* classes, long long* clk) {
    const MlpWeights w{w1, b1, w2, b2, n_classes};
    predict_block<16, 32, 32>(x, n_rows, w, classes, clk);
}
