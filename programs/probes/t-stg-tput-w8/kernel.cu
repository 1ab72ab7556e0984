// 8 warp(s) per sub-partition (programs/include/t_stg_tput.cuh).
#include "../../include/t_stg_tput.cuh"
