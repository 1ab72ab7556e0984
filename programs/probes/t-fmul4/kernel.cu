// t-fmul4: 4 FMULs per iteration (the baseline of t-fmul4-imad)
#define T_FP32 4
#include "../../include/t_fp64_issue.cuh"
