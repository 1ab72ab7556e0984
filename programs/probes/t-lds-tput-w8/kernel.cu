#include "../../include/t_lds_tput.cuh"
