// t-fp64-issue-cvt: 8 FMUL, then F2F.F64.F32 and DMUL of the last per iteration
#define T_CVT 1
#include "../../include/t_fp64_issue.cuh"
