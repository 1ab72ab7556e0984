// all three sources in one bank, the first two from the reuse cache
#include "../../include/t_regbank.cuh"
