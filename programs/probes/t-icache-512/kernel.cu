#define T_ICACHE_N 512
#include "../../include/t_icache.cuh"
