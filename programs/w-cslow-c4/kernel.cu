// w-cslow-c4: seed 003 recurrence filters, C = 4 filter(s) per thread (see ../include/seed003_iir.cuh).
#define IIR_C 4
#include "../include/seed003_iir.cuh"
