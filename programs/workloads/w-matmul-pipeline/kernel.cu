// w-matmul-pipeline (seed 002, tiled matmul): the plain kernel with cp.async double buffering (__pipeline_memcpy_async): tile t+1 is copied while tile t is multiplied
// The kernel is programs/include/w_matmul.cuh; this file only picks the form.
#define MM_FORM MM_PIPELINE
#include "../../include/w_matmul.cuh"
