// w-ilp-mixed-n32 (seed 002, ILP): 1 FP64 + 31 FP32 multiplies per iteration, the FP64 chain independent.
// The kernel is programs/include/w_ilp.cuh; this file only picks n and the form.
#define ILP_N 32
#define ILP_MODE ILP_MIXED
#include "../../include/w_ilp.cuh"
