// The loop's first instruction in slot 1 of its 128-byte line (programs/include/t_fetch_align.cuh).
#define PRE 1
#include "../../include/t_fetch_align.cuh"
