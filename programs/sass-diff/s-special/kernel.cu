#include "../../include/sass_diff.cuh"

// S2R of %tid, %ctaid (x, y, z), %laneid, %lanemask_eq / lt / le / gt / ge, and the block and
// grid dimensions (constant bank loads), on a 3-D block and a 2-D grid so that every component
// differs from the linear index.  (%clock and %smid / %warpid are not deterministic: not read.)
extern "C" __global__ void s_special(unsigned* out, int n) {
    SIMT_SITE(1);                                   // entry (trace variant only)
    unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    unsigned threads = blockDim.x * blockDim.y * blockDim.z;
    int i = (int)(block * threads + threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
    if (i >= n) return;
    unsigned lane, eq, lt, le, gt, ge;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    asm("mov.u32 %0, %%lanemask_eq;" : "=r"(eq));
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
    asm("mov.u32 %0, %%lanemask_le;" : "=r"(le));
    asm("mov.u32 %0, %%lanemask_gt;" : "=r"(gt));
    asm("mov.u32 %0, %%lanemask_ge;" : "=r"(ge));
    PUT(0, threadIdx.x | threadIdx.y << 8 | threadIdx.z << 16);
    PUT(1, blockIdx.x | blockIdx.y << 8 | blockIdx.z << 16);
    PUT(2, blockDim.x | blockDim.y << 8 | blockDim.z << 16);
    PUT(3, gridDim.x | gridDim.y << 8 | gridDim.z << 16);
    PUT(4, lane);
    PUT(5, eq);
    PUT(6, lt);
    PUT(7, le);
    PUT(8, gt);
    PUT(9, ge);
}
