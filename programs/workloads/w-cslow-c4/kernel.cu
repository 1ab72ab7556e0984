// w-cslow-c4: seed 003 recurrence filters, 4 per thread, C = 4 interleaved (see ../include/seed003_iir.cuh).
#define IIR_C 4
#include "../../include/seed003_iir.cuh"
