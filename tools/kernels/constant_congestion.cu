// Constant misses of many SMs at once (tools/constant_congestion.py): each block's four warps
// (one per sub-partition) read a kernel-parameter word before the window, read the clock, store a
// value formed from words of lines no read has touched (one line through the immediate-constant
// cache, ULDC c[0x0][0x440], or at a register index, LDC c[0x0][R+0x440], the SM's LDC cache; or
// three: ptxas reads 0x440 and 0x4c0 by ULDC, 0x480 by LDC), and read the clock again;
// k_imc_late as k_imc_one, its window 2,000 cycles after the pre-read.  Run with 1 to 132
// blocks, one an SM: how a miss's wait grows with the SMs missing at once.
// clk[4 w ...]: t0, t1, %smid, %warpid of warp w (lane 0) of the grid.
#include "probe_common.cuh"

#define WORD(offset) (((offset) - 0x220) / 4)      // the parameter block: res 0x210, clk 0x218, pad 0x220

template <bool by_index, int LINES, int LATE = 0>
__device__ __forceinline__ void window(unsigned* res, long long* clk, const Pad& pad) {
    unsigned tid = tid_x();
    unsigned g = blockIdx.x * blockDim.x + tid;
    unsigned* p = held_ptr(res + g);
    unsigned i = by_index ? (tid >> 7) : 0;          // 0, but a register: LDC c[0x0][R+offset]
    store(p + 65536, held(tid) + pad.v[i + WORD(0x400)]);      // the pre-read's line warm
    if (LATE) { long long s = clk64(); while (clk64() - s < LATE) {} }    // the window LATE cycles on
    long long t0 = clk64();
    unsigned x = held(tid) + pad.v[i + WORD(0x440)];
    if (LINES > 1) x += pad.v[i + WORD(0x480)] + pad.v[i + WORD(0x4c0)];
    store(p, x);
    long long t1 = clk64();
    if ((tid & 31) == 0) {
        long long* row = clk + 4 * (g >> 5);
        row[0] = t0; row[1] = t1; row[2] = sm_id(); row[3] = warp_slot();
    }
}

extern "C" __global__ void k_imc_one(unsigned* res, long long* clk, Pad pad) { window<false, 1>(res, clk, pad); }
extern "C" __global__ void k_mixed_three(unsigned* res, long long* clk, Pad pad) { window<false, 3>(res, clk, pad); }
extern "C" __global__ void k_imc_late(unsigned* res, long long* clk, Pad pad) { window<false, 1, 2000>(res, clk, pad); }
extern "C" __global__ void k_ldc_one(unsigned* res, long long* clk, Pad pad) { window<true, 1>(res, clk, pad); }
