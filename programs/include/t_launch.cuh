// t-launch-*: launch and drain cost per block.  T_LAUNCH_BLOCKS blocks of 128 threads that do
// almost nothing: thread 0 of each of the first 256 blocks writes its SM clock at entry and exit.
// The recorded `elapsed` time of the launch (CUDA events) over the block count gives the cost of
// starting and retiring a block; the clocks show how blocks are dealt to SMs in waves.
#pragma once
#include "simt_trace.cuh"

extern "C" __global__ void launch(long long* clk) {
    SIMT_SITE(1);                                   // entry
    long long t0 = clock64();
    if (threadIdx.x == 0 && blockIdx.x < 256) {
        clk[2 * blockIdx.x] = t0;
        clk[2 * blockIdx.x + 1] = clock64();
    }
    SIMT_SITE(2);                                   // exit
}
