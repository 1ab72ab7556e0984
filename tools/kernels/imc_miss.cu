// What a constant operand's first read costs (tools/imc_miss.py): a kernel parameter read as an
// operand (ptxas: ULDC UR, c[0x0][0x400], then VIADD R, R, UR) goes through the immediate-constant
// cache (Nsight Compute's imc_miss); a read at a register index (LDC R, c[0x0][R+0x210]) through
// LDC's path.  The parameter block: res at 0x210, clk at 0x218, pad.v[i] at 0x220 + 4 i, so offsets
// from 0x300 on lie in lines no prologue reads.
// One warp reads the clock, makes a store of a value formed in the window, and reads the clock
// again (in-order issue: the second read waits for the store's operands).  PRE: the pad word read
// before the window (through the IMC, or by LDC where the kernel's name says so); WIN: the word the
// window reads.  clk[2 w], clk[2 w + 1] = t0, t1 of warp w (lane 0); of a multi-block kernel, 4 a
// block: t0, t1, %smid, %warpid.
#include "probe_common.cuh"

enum Read { NONE, IMC, LDC };
#define WORD(offset) (((offset) - 0x220) / 4)

template <Read how> __device__ __forceinline__ unsigned word(const Pad& pad, int i) {
    if (how == LDC) return pad.v[(tid_x() >> 5) + i];   // a register index (0 in warp 0): LDC c[0x0][R+offset]
    return pad.v[i];                                 // an operand: IADD3 R, R, c[0x0][offset]
}

template <Read pre_how, int PRE, Read win_how, int WIN>
__device__ __forceinline__ void timed(unsigned* res, long long* clk, const Pad& pad, unsigned tid) {
    unsigned* p = held_ptr(res + tid);
    if (pre_how != NONE) store(p + 32, held(tid) + word<pre_how>(pad, WORD(PRE)));   // not p: ptxas drops a store overwritten
    long long t0 = clk64();
    unsigned x = held(tid);
    store(p, win_how == NONE ? x + x : x + word<win_how>(pad, WORD(WIN)));
    long long t1 = clk64();
    if ((tid & 31) == 0) { clk[2 * (tid >> 5)] = t0; clk[2 * (tid >> 5) + 1] = t1; }
}

#define ONE_WARP(name, pre_how, pre, win_how, win)                                   \
    extern "C" __global__ void name(unsigned* res, long long* clk, Pad pad) {        \
        timed<pre_how, pre, win_how, win>(res, clk, pad, tid_x());                     \
    }

ONE_WARP(k_imc_none, NONE, 0, NONE, 0)
ONE_WARP(k_imc_cold, NONE, 0, IMC, 0x400)
ONE_WARP(k_imc_warm8, IMC, 0x400, IMC, 0x408)
ONE_WARP(k_imc_warm32, IMC, 0x400, IMC, 0x420)
ONE_WARP(k_imc_warm64, IMC, 0x400, IMC, 0x440)
ONE_WARP(k_imc_warm128, IMC, 0x400, IMC, 0x480)
ONE_WARP(k_imc_warm256, IMC, 0x400, IMC, 0x500)
ONE_WARP(k_ldc_cold, NONE, 0, LDC, 0x404)
ONE_WARP(k_ldc_warm, LDC, 0x400, LDC, 0x404)
ONE_WARP(k_ldc_warm64, LDC, 0x400, LDC, 0x440)
ONE_WARP(k_ldc_warm128, LDC, 0x400, LDC, 0x480)
ONE_WARP(k_ldc_warm512, LDC, 0x400, LDC, 0x600)
ONE_WARP(k_ldc_then_imc, LDC, 0x400, IMC, 0x404)
ONE_WARP(k_imc_then_ldc, IMC, 0x400, LDC, 0x404)

// Two warps: warp TIMED (1: another sub-partition, 4: the same) waits some 3,000 cycles, then times
// its read of 0x404; warp 0 reads 0x400 at once (k_imc_other, k_imc_same_sp) or nothing
// (k_imc_alone); the warps between return at once.
template <bool other_reads, int TIMED> __device__ __forceinline__ void two_warps(unsigned* res, long long* clk, const Pad& pad) {
    unsigned tid = tid_x();
    if (tid < 32) {
        if (other_reads) store(held_ptr(res + 2048 + tid), held(tid) + pad.v[WORD(0x400)]);
        return;
    }
    if (tid < 32 * TIMED) return;
    long long s = clk64();
    while (clk64() - s < 3000) {}
    timed<NONE, 0, IMC, 0x404>(res, clk, pad, tid);
}

extern "C" __global__ void k_imc_other(unsigned* res, long long* clk, Pad pad) { two_warps<true, 1>(res, clk, pad); }
extern "C" __global__ void k_imc_same_sp(unsigned* res, long long* clk, Pad pad) { two_warps<true, 4>(res, clk, pad); }
extern "C" __global__ void k_imc_alone(unsigned* res, long long* clk, Pad pad) { two_warps<false, 1>(res, clk, pad); }

// Many one-warp blocks, each holding most of its SM's shared memory, so an SM runs them one after
// the other: which blocks pay the first read (k_imc_blocks reads 0x400 in its window).
template <Read win_how> __device__ __forceinline__ void block_row(unsigned* res, long long* clk, const Pad& pad) {
    extern __shared__ unsigned pad_smem[];
    unsigned tid = tid_x();
    unsigned* p = held_ptr(res + blockIdx.x * 32 + tid);
    long long t0 = clk64();
    unsigned x = held(tid);
    store(p, win_how == NONE ? x + x : x + pad.v[WORD(0x400)]);
    long long t1 = clk64();
    if (tid == 0) {
        long long* row = clk + 4 * blockIdx.x;
        row[0] = t0; row[1] = t1; row[2] = sm_id(); row[3] = warp_slot(); pad_smem[0] = 0;
    }
}

extern "C" __global__ void k_imc_blocks(unsigned* res, long long* clk, Pad pad) { block_row<IMC>(res, clk, pad); }
extern "C" __global__ void k_imc_blocks_none(unsigned* res, long long* clk, Pad pad) { block_row<NONE>(res, clk, pad); }

// The block's dimensions (bank 0's driver words, c[0x0][0x0]) read in the window, cold.
extern "C" __global__ void k_imc_dims(unsigned* res, long long* clk, Pad pad) {
    unsigned tid = tid_x();
    unsigned* p = held_ptr(res + tid);
    long long t0 = clk64();
    store(p, held(tid) + blockDim.x);
    long long t1 = clk64();
    if ((tid & 31) == 0) { clk[2 * (tid >> 5)] = t0; clk[2 * (tid >> 5) + 1] = t1; }
}

// Two or three words of lines not read before, in one window: does a warp wait for each miss in
// turn, or do they overlap?
extern "C" __global__ void k_imc_two(unsigned* res, long long* clk, Pad pad) {
    unsigned tid = tid_x();
    unsigned* p = held_ptr(res + tid);
    long long t0 = clk64();
    store(p, held(tid) + pad.v[WORD(0x400)] + pad.v[WORD(0x440)]);
    long long t1 = clk64();
    if ((tid & 31) == 0) { clk[2 * (tid >> 5)] = t0; clk[2 * (tid >> 5) + 1] = t1; }
}

extern "C" __global__ void k_imc_three(unsigned* res, long long* clk, Pad pad) {
    unsigned tid = tid_x();
    unsigned* p = held_ptr(res + tid);
    long long t0 = clk64();
    store(p, held(tid) + pad.v[WORD(0x400)] + pad.v[WORD(0x440)] + pad.v[WORD(0x480)]);
    long long t1 = clk64();
    if ((tid & 31) == 0) { clk[2 * (tid >> 5)] = t0; clk[2 * (tid >> 5) + 1] = t1; }
}
