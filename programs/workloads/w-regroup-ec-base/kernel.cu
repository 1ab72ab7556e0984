// w-regroup-ec-*: seed 000's CUDA-EC-like read-correction kernel (see ../include/seed000_ec.cuh).
// The -index and -permuted programs run this same PTX (their manifests' kernel_file points here).
#include "../../include/seed000_ec.cuh"
