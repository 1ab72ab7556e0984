// FFMA sources as ptxas allocates them (a and b from the reuse cache)
#include "../../include/t_regbank.cuh"
