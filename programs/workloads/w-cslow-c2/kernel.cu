// w-cslow-c2: seed 003 recurrence filters, 4 per thread, C = 2 interleaved (see ../include/seed003_iir.cuh).
#define IIR_C 2
#include "../../include/seed003_iir.cuh"
