// The loop's first instruction in slot 3 of its 128-byte line (programs/include/t_fetch_align.cuh).
#define PRE 8
#include "../../include/t_fetch_align.cuh"
