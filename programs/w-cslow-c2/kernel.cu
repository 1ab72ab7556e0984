// w-cslow-c2: seed 003 recurrence filters, C = 2 filter(s) per thread (see ../include/seed003_iir.cuh).
#define IIR_C 2
#include "../include/seed003_iir.cuh"
