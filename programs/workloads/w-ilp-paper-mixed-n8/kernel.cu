// w-ilp-paper-mixed-n8 (seed 002, ILP in the paper's form): 1 FP64 + 7 FP32 multiplies per iteration, one dependent FP32 chain,
// factors from shared memory.  The kernel is programs/include/w_ilp_paper.cuh.
#define ILP_N 8
#define PAPER_MIXED 1
#include "../../include/w_ilp_paper.cuh"
