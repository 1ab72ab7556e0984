// A block's first read of a parameter line right after its threads' stores, as the workloads'
// epilogues read their clock pointer (w-regroup-lbm-*: nine STGs a thread, a barrier, then thread
// 0's LDC.64 c[0x0][0x240], IMAD.WIDE, STG, clock) (tools/ldc_behind_stores.py).  Blocks of 256
// threads, one an SM; each thread stores STORES words, one to each of STORES planes 512 KiB apart
// (a warp's store: one 128-byte line), then the block meets at a barrier and thread 0 reads the
// clock, reads READ (nothing; a line of the parameter block nothing has read, through the SM's LDC
// cache, LDC c[0x0][R+0x440]; or a global line the block loaded before its stores, ld.global.cg),
// stores a value formed from it and reads the clock again; the _late kernels first wait 4,000
// cycles after the barrier (the _d kernels the number of cycles named); READ_LDC_HIT reads a word of
// the parameter line thread 0 read before the stores (an LDC-cache hit); the _sector kernels store
// from lanes 0-7 only (a warp's store one 32-byte sector).  clk[4 b ...]: t0, t1, %smid of block b.
#include "probe_common.cuh"

#define WORD(offset) (((offset) - 0x220) / 4)      // the parameter block: out 0x210, clk 0x218, pad 0x220
#define PLANE (1 << 17)                             // words between a thread's stores
#define READ_NONE 0
#define READ_LDC 1
#define READ_LDG 2
#define READ_LDC_HIT 3

__device__ __forceinline__ unsigned load_cg(const unsigned* p) {
    unsigned v; asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory"); return v;
}

template <int STORES, int READ, int LATE, int SECTOR = 0>
__device__ __forceinline__ void epilogue(unsigned* out, long long* clk, const Pad& pad) {
    unsigned tid = tid_x();
    unsigned g = blockIdx.x * blockDim.x + tid;
    unsigned* p = held_ptr(out + g);
    unsigned* line = held_ptr(out + 20 * PLANE + 32 * blockIdx.x);   // the block's own line for READ_LDG
    unsigned warm = READ == READ_LDG && tid == 0 ? load_cg(line) : 0u;
    if (READ == READ_LDC_HIT && tid == 0) warm = pad.v[(held(g) >> 30) + WORD(0x440)];   // 0, not known to ptxas
    if (!SECTOR || (tid & 31) < 8) {
#pragma unroll
        for (int q = 0; q < STORES; q++) store(p + q * PLANE, held(tid) + q);
    }
    __syncthreads();
    if (tid == 0) {
        if (LATE) { long long s = clk64(); while (clk64() - s < LATE) {} }
        unsigned i = held(tid) >> 7;                 // 0, but a register: LDC c[0x0][R+offset]
        long long t0 = clk64();
        unsigned x = held(warm);
        if (READ == READ_LDC) x += pad.v[i + WORD(0x440)];
        if (READ == READ_LDG) x += load_cg(line);
        if (READ == READ_LDC_HIT) x += pad.v[(held(g) >> 30) + WORD(0x448)];
        store(p + 19 * PLANE, x);
        long long t1 = clk64();
        long long* row = clk + 4 * blockIdx.x;
        row[0] = t0; row[1] = t1; row[2] = sm_id();
    }
}

#define K(NAME, S, R, L, ...) \
    extern "C" __global__ void NAME(unsigned* out, long long* clk, Pad pad) { epilogue<S, R, L, ##__VA_ARGS__>(out, clk, pad); }
K(k_s0_none, 0, READ_NONE, 0)
K(k_s9_none, 9, READ_NONE, 0)
K(k_s0_ldc, 0, READ_LDC, 0)
K(k_s3_ldc, 3, READ_LDC, 0)
K(k_s9_ldc, 9, READ_LDC, 0)
K(k_s18_ldc, 18, READ_LDC, 0)
K(k_s9_ldc_late, 9, READ_LDC, 4000)
K(k_s0_ldg, 0, READ_LDG, 0)
K(k_s3_ldg, 3, READ_LDG, 0)
K(k_s9_ldg, 9, READ_LDG, 0)
K(k_s18_ldg, 18, READ_LDG, 0)
K(k_s9_ldg_late, 9, READ_LDG, 4000)
K(k_s0_ldchit, 0, READ_LDC_HIT, 0)
K(k_s9_ldchit, 9, READ_LDC_HIT, 0)
K(k_s18_ldchit, 18, READ_LDC_HIT, 0)
K(k_s9_ldg_d250, 9, READ_LDG, 250)
K(k_s9_ldg_d1000, 9, READ_LDG, 1000)
K(k_s9_ldg_d2000, 9, READ_LDG, 2000)
K(k_s18_ldg_d1000, 18, READ_LDG, 1000)
K(k_s9_sector_ldg, 9, READ_LDG, 0, 1)
K(k_s18_sector_ldg, 18, READ_LDG, 0, 1)
