// t-fmul7: 7 FMULs per iteration (the baseline of t-fmul7-imad)
#define T_FP32 7
#include "../../include/t_fp64_issue.cuh"
