// 4 warp(s) in the block (programs/include/t_stg_burst.cuh).

#include "../../include/t_stg_burst.cuh"
