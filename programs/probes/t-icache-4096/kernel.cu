#define T_ICACHE_N 4096
#include "../../include/t_icache.cuh"
