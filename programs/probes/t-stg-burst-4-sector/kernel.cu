// 4 warp(s) in the block (programs/include/t_stg_burst.cuh).
#define T_STG_BYTES
#include "../../include/t_stg_burst.cuh"
