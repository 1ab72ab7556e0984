#include "../../include/simt_trace.cuh"

#define IDX(x, y, z) ((x) + nx * ((y) + ny * (z)))
// Anext = c1 (sum of the 6 neighbours) - c0 A0 at interior points; one thread per (x, y), loop over z.
extern "C" __global__ void stencil3d(const float* A0, float* Anext, int nx, int ny, int nz, float c0, float c1) {
    SIMT_SITE(1);
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x > 0 && y > 0 && x < nx - 1 && y < ny - 1) {
        for (int z = 1; z < nz - 1; ++z) {
            Anext[IDX(x, y, z)] = c1 * (A0[IDX(x, y, z + 1)] + A0[IDX(x, y, z - 1)]
                                        + A0[IDX(x, y + 1, z)] + A0[IDX(x, y - 1, z)]
                                        + A0[IDX(x + 1, y, z)] + A0[IDX(x - 1, y, z)])
                                  - c0 * A0[IDX(x, y, z)];
        }
        SIMT_SITE(2);
    }
    SIMT_SITE(3);
}
