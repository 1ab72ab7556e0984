// w-matmul-warpspec8 (seed 002, tiled matmul): warp-specialised, warps with threadIdx.y < 8 (two per SMSP) accumulate in FP64, the other 24 in FP32
// The kernel is programs/include/w_matmul.cuh; this file only picks the form.
#define MM_FORM MM_WARPSPEC
#include "../../include/w_matmul.cuh"
