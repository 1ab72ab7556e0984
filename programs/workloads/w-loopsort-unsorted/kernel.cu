// w-loopsort-unsorted: seed 001 Figures 8-9, per-thread loop counts; counts in random order (Figure 8) (see ../include/seed001_loopsort.cuh).
#include "../../include/seed001_loopsort.cuh"
