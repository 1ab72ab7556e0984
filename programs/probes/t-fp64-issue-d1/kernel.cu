// t-fp64-issue-d1: 7 FMUL and 1 DMUL per iteration
#define T_FP64 1
#include "../../include/t_fp64_issue.cuh"
