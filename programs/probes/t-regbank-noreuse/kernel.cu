// ptxas's registers, reuse flags cleared
#include "../../include/t_regbank.cuh"
