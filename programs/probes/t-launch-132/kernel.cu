#include "../../include/t_launch.cuh"
