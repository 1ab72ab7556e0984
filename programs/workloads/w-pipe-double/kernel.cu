// w-pipe-double: seed 003 software pipelining, PIPE_DOUBLE = 1 (see ../include/seed003_pipe.cuh).
#define PIPE_DOUBLE 1
#include "../../include/seed003_pipe.cuh"
