#define T_FFMA_WARPS 5
#define T_FFMA_READS 9
#include "../../include/t_ffma_stream.cuh"
