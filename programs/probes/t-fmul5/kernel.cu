// t-fmul5: 5 FMULs per iteration (the baseline of t-fmul5-imad)
#define T_FP32 5
#include "../../include/t_fp64_issue.cuh"
