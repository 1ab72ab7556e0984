// all three sources in one bank (registers equal mod 4), no reuse
#include "../../include/t_regbank.cuh"
