// 4 warps per sub-partition (programs/include/t_diverge_warps.cuh).
#include "../../include/t_diverge_warps.cuh"
