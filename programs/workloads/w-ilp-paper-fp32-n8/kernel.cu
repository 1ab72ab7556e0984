// w-ilp-paper-fp32-n8 (seed 002, ILP in the paper's form): 8 FP32 multiplies per iteration, one dependent FP32 chain,
// factors from shared memory.  The kernel is programs/include/w_ilp_paper.cuh.
#define ILP_N 8
#define PAPER_MIXED 0
#include "../../include/w_ilp_paper.cuh"
