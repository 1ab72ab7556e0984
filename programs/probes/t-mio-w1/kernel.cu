#define T_MIO_WARPS 1
#include "../../include/t_mio_burst.cuh"
