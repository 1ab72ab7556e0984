// all three sources of one parity, two of them equal mod 4, no reuse
#include "../../include/t_regbank.cuh"
