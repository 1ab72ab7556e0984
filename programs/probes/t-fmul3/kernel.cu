// t-fmul3: 3 FMULs per iteration (the baseline of t-fmul3-imad)
#define T_FP32 3
#include "../../include/t_fp64_issue.cuh"
