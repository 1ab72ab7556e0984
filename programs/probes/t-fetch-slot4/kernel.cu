// The loop's first instruction in slot 4 of its 128-byte line (programs/include/t_fetch_align.cuh).
#define PRE 3
#include "../../include/t_fetch_align.cuh"
