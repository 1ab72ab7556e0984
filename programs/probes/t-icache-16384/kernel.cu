#define T_ICACHE_N 16384
#include "../../include/t_icache.cuh"
