// t-fp64-issue-f0-u2: 8 FMUL per iteration, two iterations per loop trip
#define T_UNROLL 2
#include "../../include/t_fp64_issue.cuh"
