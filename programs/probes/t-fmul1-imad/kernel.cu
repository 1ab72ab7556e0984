// t-fmul1-imad: 1 FMUL per iteration, then 1 IMAD (which pipe the FMULs leave the IMAD)
#define T_FP32 1
#define T_IMAD 1
#include "../../include/t_fp64_issue.cuh"
