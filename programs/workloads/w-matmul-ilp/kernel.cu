// w-matmul-ilp (seed 002, tiled matmul): FP32/FP64 ILP, of each tile's 32 products 8 (j % 4 == 0) accumulated in FP64, 24 in FP32 (the paper's 24:8 split)
// The kernel is programs/include/w_matmul.cuh; this file only picks the form.
#define MM_FORM MM_ILP
#include "../../include/w_matmul.cuh"
