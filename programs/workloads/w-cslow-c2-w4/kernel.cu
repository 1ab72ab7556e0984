// w-cslow-c2-w4: seed 003 recurrence filters, 4 per thread, C = 2 interleaved, 4 warps per SMSP (see ../include/seed003_iir.cuh).
#define IIR_C 2
#include "../../include/seed003_iir.cuh"
