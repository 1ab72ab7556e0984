// two sources equal mod 4, the third in the other parity, no reuse
#include "../../include/t_regbank.cuh"
