// t-fmul6: 6 FMULs per iteration (the baseline of t-fmul6-imad)
#define T_FP32 6
#include "../../include/t_fp64_issue.cuh"
