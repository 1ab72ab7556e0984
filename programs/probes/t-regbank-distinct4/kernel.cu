// sources in three different registers mod 4 (two of one parity), no reuse
#include "../../include/t_regbank.cuh"
