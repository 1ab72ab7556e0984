// t-fmul1: 1 FMUL per iteration (the baseline of t-fmul1-imad)
#define T_FP32 1
#include "../../include/t_fp64_issue.cuh"
