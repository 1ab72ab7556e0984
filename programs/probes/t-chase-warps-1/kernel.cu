// 1 warp(s) per sub-partition (programs/include/t_chase_warps.cuh).
#include "../../include/t_chase_warps.cuh"
