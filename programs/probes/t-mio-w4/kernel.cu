#define T_MIO_WARPS 4
#include "../../include/t_mio_burst.cuh"
