// w-ilp-dep-n32 (seed 002, ILP): 31 FP32 multiplies + 1 FP64 multiply consuming the last FP32 result of the iteration.
// The kernel is programs/include/w_ilp.cuh; this file only picks n and the form.
#define ILP_N 32
#define ILP_MODE ILP_DEPENDENT
#include "../../include/w_ilp.cuh"
