// t-fmul2: 2 FMULs per iteration (the baseline of t-fmul2-imad)
#define T_FP32 2
#include "../../include/t_fp64_issue.cuh"
