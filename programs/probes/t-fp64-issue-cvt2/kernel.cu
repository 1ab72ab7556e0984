// t-fp64-issue-cvt2: 8 FMUL per iteration, the first chain then through FP64 (F2F.F64.F32, DMUL, F2F.F32.F64, dependent)
#define T_CVT 2
#include "../../include/t_fp64_issue.cuh"
