// Mask-trace instrumentation shared by the hardware run and the simulator.
//
// SIMT_SITE(id) marks a point in a kernel.  Compiled with -DSIMT_TRACE, the leader (lowest active
// lane) of each active set of threads appends one entry to the module-global buffer simt_trace:
//   word 0: global warp id << 40 | site id << 32 | __activemask()
//   word 1: clock64() at the site
// Entries of one warp appear in program order; warps interleave arbitrarily, so traces are
// compared per warp (site, mask) sequence; clocks are compared separately.  Without the define
// the macro is empty and the kernel is unchanged.
#pragma once

#define SIMT_TRACE_CAPACITY 65536

#ifdef SIMT_TRACE
__device__ unsigned long long simt_trace[2 * SIMT_TRACE_CAPACITY];
__device__ unsigned int simt_trace_count;

__device__ __forceinline__ void simt_trace_site(unsigned int site) {
    unsigned int mask = __activemask();
    unsigned int lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    if ((mask & ((1u << lane) - 1u)) == 0u) {          // the lowest active lane writes
        unsigned long long when = clock64();
        unsigned int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
        unsigned int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
        unsigned int warps = (blockDim.x * blockDim.y * blockDim.z + 31u) / 32u;
        unsigned long long warp = (unsigned long long)block * warps + tid / 32u;
        unsigned int slot = atomicAdd(&simt_trace_count, 1u);
        if (slot < SIMT_TRACE_CAPACITY) {
            simt_trace[2 * slot] = (warp << 40) | ((unsigned long long)(site & 0xFFu) << 32) | mask;
            simt_trace[2 * slot + 1] = when;
        }
    }
}
#define SIMT_SITE(id) simt_trace_site(id)
#else
#define SIMT_SITE(id) do { } while (0)
#endif
