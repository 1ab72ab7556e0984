// w-ilp-dep-n16 (seed 002, ILP): 15 FP32 multiplies + 1 FP64 multiply consuming the last FP32 result of the iteration.
// The kernel is programs/include/w_ilp.cuh; this file only picks n and the form.
#define ILP_N 16
#define ILP_MODE ILP_DEPENDENT
#include "../../include/w_ilp.cuh"
