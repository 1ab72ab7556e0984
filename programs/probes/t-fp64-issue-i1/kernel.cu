// t-fp64-issue-i1: 7 FMUL and 1 IMAD per iteration
#define T_IMAD 1
#include "../../include/t_fp64_issue.cuh"
