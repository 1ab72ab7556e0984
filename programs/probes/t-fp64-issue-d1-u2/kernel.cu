// t-fp64-issue-d1-u2: 7 FMUL and 1 DMUL per iteration, two iterations per loop trip
#define T_FP64 1
#define T_UNROLL 2
#include "../../include/t_fp64_issue.cuh"
