// w-ilp-fp32-n32 (seed 002, ILP): 32 FP32 multiplies per iteration (independent chains).
// The kernel is programs/include/w_ilp.cuh; this file only picks n and the form.
#define ILP_N 32
#define ILP_MODE ILP_FP32
#include "../../include/w_ilp.cuh"
