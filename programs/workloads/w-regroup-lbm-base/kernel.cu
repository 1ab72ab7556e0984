// w-regroup-lbm-*: seed 000's LBM-like lattice-Boltzmann step (see ../include/seed000_lbm.cuh).
// The -index and -permuted programs run this same PTX (their manifests' kernel_file points here).
#include "../../include/seed000_lbm.cuh"
