// t-fp64-issue-d4: 4 FMUL and 4 DMUL per iteration
#define T_FP64 4
#include "../../include/t_fp64_issue.cuh"
