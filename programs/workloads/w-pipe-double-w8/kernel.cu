// w-pipe-double-w8: seed 003 software pipelining, PIPE_DOUBLE = 1, 8 warps per SMSP (see ../include/seed003_pipe.cuh).
#define PIPE_DOUBLE 1
#include "../../include/seed003_pipe.cuh"
