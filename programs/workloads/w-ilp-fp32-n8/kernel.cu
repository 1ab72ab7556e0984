// w-ilp-fp32-n8 (seed 002, ILP): 8 FP32 multiplies per iteration (independent chains).
// The kernel is programs/include/w_ilp.cuh; this file only picks n and the form.
#define ILP_N 8
#define ILP_MODE ILP_FP32
#include "../../include/w_ilp.cuh"
