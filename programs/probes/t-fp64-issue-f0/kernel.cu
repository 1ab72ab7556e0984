// t-fp64-issue-f0: 8 FMUL per iteration
#include "../../include/t_fp64_issue.cuh"
