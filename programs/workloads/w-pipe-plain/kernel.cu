// w-pipe-plain: seed 003 software pipelining, PIPE_DOUBLE = 0 (see ../include/seed003_pipe.cuh).
#define PIPE_DOUBLE 0
#include "../../include/seed003_pipe.cuh"
