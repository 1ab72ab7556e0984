#include "../../include/t_ldg_tput.cuh"
