// t-fp64-issue-d2: 6 FMUL and 2 DMUL per iteration
#define T_FP64 2
#include "../../include/t_fp64_issue.cuh"
