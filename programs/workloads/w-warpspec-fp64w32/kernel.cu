// w-warpspec-fp64w32 (seed 002, warp specialisation): 32 of the block's 32 warps work in FP64, the rest
// in FP32.  The kernel is programs/include/w_warpspec.cuh (the same for every variant); the number of
// FP64 warps is the manifest's last argument.
#include "../../include/w_warpspec.cuh"
