// w-loopsort-sorted: seed 001 Figures 8-9, per-thread loop counts; the same counts sorted ascending (Figure 9) (see ../include/seed001_loopsort.cuh).
#include "../../include/seed001_loopsort.cuh"
