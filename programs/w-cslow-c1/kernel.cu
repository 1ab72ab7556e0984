// w-cslow-c1: seed 003 recurrence filters, C = 1 filter(s) per thread (see ../include/seed003_iir.cuh).
#define IIR_C 1
#include "../include/seed003_iir.cuh"
