// t-fp64-issue-d1-vr: 7 FMUL and 1 DMUL per iteration, the DMUL's factor in vector registers
#define T_FP64 1
#define T_VREG 1
#include "../../include/t_fp64_issue.cuh"
