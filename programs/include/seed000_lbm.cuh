// Seed 000's LBM-like benchmark: one lattice-Boltzmann (D2Q9, BGK) time step on a channel with
// porous obstacles, whose boundary cells branch by cell type (Pang et al., DAC '24, Sec. 4: "LBM
// ... a fluid dynamics partial differential equation solver, exemplifying moderate control flow
// divergence").
//
// Thread t updates cell c = idx[t] (x = c % nx, y = c / nx) stored at slot[c]: every per-cell
// array (type, the nine distribution planes fin[q * n + s], fout) is indexed by storage slot, so
// the same kernel runs the original layout (idx = slot = identity), the regrouped order by index
// redirection (idx = Algorithm 1's order, slot = identity) and physically permuted data
// (slot = the inverse permutation, idx = the permutation, so that thread t works on slot t: a
// stencil needs its cells' coordinates and its neighbours' slots even when its own data is
// contiguous).  The cell type is the path class:
//   0 fluid   pull the nine distributions (half-way bounce-back from solid neighbours), collide
//   1 solid   full-way bounce-back in place
//   2 inlet   (x = 0) pull, Zou-He velocity inlet (u = (LBM_U_IN, 0)) for f1, f5, f8, collide
//   3 outlet  (x = nx-1) pull, unknown f3, f6, f7 copied from the cell to the left, collide
// Arithmetic uses __fadd_rn / __fmul_rn only (never contracted into FMAs), so
// simt_sim/workloads/regroup.py: lbm_reference reproduces fout bit for bit with numpy float32.
// clk[2*b], clk[2*b+1]: clock64() at block b's start and end.
#pragma once
#include "simt_trace.cuh"

#define LBM_FLUID 0u
#define LBM_SOLID 1u
#define LBM_INLET 2u
#define LBM_OUTLET 3u
#define LBM_OMEGA 1.25f
#define LBM_U_IN 0.05f

__device__ __forceinline__ float lbm_add(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ float lbm_sub(float a, float b) { return __fadd_rn(a, -b); }
__device__ __forceinline__ float lbm_mul(float a, float b) { return __fmul_rn(a, b); }

extern "C" __global__ void lbm_step(const unsigned int* __restrict__ idx, const unsigned int* __restrict__ slot,
                                    const unsigned int* __restrict__ type, const float* __restrict__ fin,
                                    float* __restrict__ fout, int nx, int n, long long* clk) {
    const int cx[9] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
    const int cy[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
    const int opp[9] = {0, 3, 4, 1, 2, 7, 8, 5, 6};
    const float wt[9] = {4.0f / 9, 1.0f / 9, 1.0f / 9, 1.0f / 9, 1.0f / 9, 1.0f / 36, 1.0f / 36, 1.0f / 36, 1.0f / 36};
    SIMT_SITE(1);
    __syncthreads();
    const long long t0 = clock64();
    const unsigned int c = idx[blockIdx.x * blockDim.x + threadIdx.x];
    const int x = c % nx, y = c / nx;
    const unsigned int s = slot[c];
    const unsigned int kind = type[s];
    if (kind == LBM_SOLID) {
        SIMT_SITE(2);
#pragma unroll
        for (int q = 0; q < 9; q++) fout[q * n + s] = fin[opp[q] * n + s];
    } else {
        SIMT_SITE(3);
        float f[9];
#pragma unroll
        for (int q = 0; q < 9; q++) {                  // pull from the upstream neighbour
            const int sx = x - cx[q], sy = y - cy[q];
            if (sx < 0 || sx >= nx) {
                f[q] = 0.0f;                           // from outside: set by the inlet / outlet rule
            } else {
                const unsigned int ns = slot[sy * nx + sx];
                f[q] = type[ns] == LBM_SOLID ? fin[opp[q] * n + s] : fin[q * n + ns];
            }
        }
        if (kind == LBM_INLET) {                       // Zou-He: rho from the known populations
            SIMT_SITE(4);
            const float known = lbm_add(lbm_add(f[0], f[2]), f[4]);
            const float in_from_x = lbm_add(lbm_add(f[3], f[6]), f[7]);
            const float rho = lbm_mul(lbm_add(known, lbm_add(in_from_x, in_from_x)), 1.0f / (1.0f - LBM_U_IN));
            const float ru = lbm_mul(rho, LBM_U_IN);
            const float half_dy = lbm_mul(0.5f, lbm_sub(f[2], f[4]));
            f[1] = lbm_add(f[3], lbm_mul(2.0f / 3.0f, ru));
            f[5] = lbm_add(lbm_sub(f[7], half_dy), lbm_mul(1.0f / 6.0f, ru));
            f[8] = lbm_add(lbm_add(f[6], half_dy), lbm_mul(1.0f / 6.0f, ru));
        } else if (kind == LBM_OUTLET) {               // zero gradient: the left cell's populations
            SIMT_SITE(5);
            const unsigned int left = slot[y * nx + x - 1];
            f[3] = fin[3 * n + left];
            f[6] = fin[6 * n + left];
            f[7] = fin[7 * n + left];
        }
        float rho = f[0];
#pragma unroll
        for (int q = 1; q < 9; q++) rho = lbm_add(rho, f[q]);
        const float ux = lbm_sub(lbm_sub(lbm_add(lbm_sub(lbm_add(f[1], f[5]), f[3]), f[8]), f[6]), f[7]);
        const float uy = lbm_sub(lbm_sub(lbm_add(lbm_sub(lbm_add(f[2], f[5]), f[4]), f[6]), f[7]), f[8]);
        const float usq = lbm_add(lbm_mul(ux, ux), lbm_mul(uy, uy));
#pragma unroll
        for (int q = 0; q < 9; q++) {                  // BGK collision towards the equilibrium
            const float cu = lbm_add(lbm_mul((float)cx[q], ux), lbm_mul((float)cy[q], uy));
            const float poly = lbm_sub(lbm_add(lbm_add(rho, lbm_mul(3.0f, cu)), lbm_mul(4.5f, lbm_mul(cu, cu))),
                                       lbm_mul(1.5f, usq));
            const float feq = lbm_mul(wt[q], poly);
            fout[q * n + s] = lbm_add(f[q], lbm_mul(LBM_OMEGA, lbm_sub(feq, f[q])));
        }
    }
    SIMT_SITE(6);
    __syncthreads();
    if (threadIdx.x == 0) {
        SIMT_SITE(7);
        clk[2 * blockIdx.x] = t0;
        clk[2 * blockIdx.x + 1] = clock64();
    }
}
