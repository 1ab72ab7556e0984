// w-pipe-plain-w8: seed 003 software pipelining, PIPE_DOUBLE = 0, 8 warps per SMSP (see ../include/seed003_pipe.cuh).
#define PIPE_DOUBLE 0
#include "../../include/seed003_pipe.cuh"
