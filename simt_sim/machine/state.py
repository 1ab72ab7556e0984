"""Machine state as numpy arrays (structure of arrays), grouped in named tuples for numba.

Threads live in resident-block slots: slot s holds one block's warps s*wpb .. s*wpb+wpb-1 and
their threads w*warp_size + lane.  The 32-bit register file is one uint32 array also seen as
float32 (an aliasing view, no copies); the 64-bit file likewise as float64.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

Code = namedtuple("Code", "rows cu64 cf32 cf64 vecs")
Regs = namedtuple("Regs", "r32 f32 r64 f64 pred")
Warps = namedtuple("Warps", "pc mask live full status gid sp kind rpc join ppc pmask max_sp bar_mask")
Memory = namedtuple("Memory", "gmem alloc_base alloc_end alloc_off smem lmem pmem")
# geometry: grid x,y,z, block x,y,z, warp size, warps/block, threads/block, slots, blocks,
#           shared bytes per block, local bytes per thread, policy, max instructions, n_sm,
#           resident-block slots per SM (slot // slots_per_sm is the SM)
GEOM_FIELDS = ("gx", "gy", "gz", "bx", "by", "bz", "warp_size", "wpb", "tpb", "slots", "blocks",
               "shared_bytes", "local_bytes", "policy", "max_warp_insts", "n_sm", "slots_per_sm")
G = {name: i for i, name in enumerate(GEOM_FIELDS)}

# warp status
W_EMPTY, W_READY, W_BARRIER, W_DONE = 0, 1, 2, 3

# fault codes (written to the fault array: code, warp gid, lane, pc, address, block, thread, extra)
FAULT_NONE, FAULT_OOB, FAULT_MISALIGNED, FAULT_DEADLOCK, FAULT_STACK, FAULT_LIMIT, FAULT_TRAP, \
    FAULT_EMPTY_POP, FAULT_UNSUPPORTED, FAULT_CYCLE_LIMIT = range(10)

# counters
C_EVENTS, C_HIST, C_WARP_INSTS, C_THREAD_INSTS, C_ACTIVE_LANES, C_NEXT_BLOCK, C_BLOCKS_DONE, \
    C_CLOCK = range(8)
N_COUNTERS = 8

# run-loop return codes
RUN_DONE, RUN_FAULT, RUN_HISTORY_FULL, RUN_EVENTS_FULL, RUN_TRACE_FULL, RUN_SLICE = range(6)


def make_code(program) -> Code:
    return Code(program.code, program.const_u64, program.const_f32, program.const_f64, program.vec_regs)


def make_regs(n_threads: int, program) -> Regs:
    r32 = np.zeros((n_threads, program.n_r32), dtype=np.uint32)
    r64 = np.zeros((n_threads, program.n_r64), dtype=np.uint64)
    return Regs(r32, r32.view(np.float32), r64, r64.view(np.float64),
                np.zeros((n_threads, program.n_pred), dtype=np.uint8))


def make_warps(n_warps: int, depth: int) -> Warps:
    def i64(*shape):
        return np.zeros(shape, dtype=np.int64)
    return Warps(pc=i64(n_warps), mask=i64(n_warps), live=i64(n_warps), full=i64(n_warps),
                 status=i64(n_warps), gid=i64(n_warps), sp=i64(n_warps), kind=i64(n_warps, depth),
                 rpc=i64(n_warps, depth), join=i64(n_warps, depth), ppc=i64(n_warps, depth),
                 pmask=i64(n_warps, depth), max_sp=i64(n_warps), bar_mask=i64(n_warps))
