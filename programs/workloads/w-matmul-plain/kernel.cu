// w-matmul-plain (seed 002, tiled matmul): every product accumulated in FP32
// The kernel is programs/include/w_matmul.cuh; this file only picks the form.
#define MM_FORM MM_PLAIN
#include "../../include/w_matmul.cuh"
