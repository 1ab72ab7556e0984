#define T_LOOP_VOTE 1
#define T_LOOP_BREAK 1
#include "../../include/t_loop_exit.cuh"
