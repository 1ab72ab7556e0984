#define T_FFMA_WARPS 4
#define T_FFMA_READS 2
#include "../../include/t_ffma_stream.cuh"
