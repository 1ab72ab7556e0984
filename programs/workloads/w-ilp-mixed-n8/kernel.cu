// w-ilp-mixed-n8 (seed 002, ILP): 1 FP64 + 7 FP32 multiplies per iteration, the FP64 chain independent.
// The kernel is programs/include/w_ilp.cuh; this file only picks n and the form.
#define ILP_N 8
#define ILP_MODE ILP_MIXED
#include "../../include/w_ilp.cuh"
