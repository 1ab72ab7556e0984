"""Address translation, bounds checks and little-endian loads/stores for every state space.

A warp-instruction's lanes usually fall in one global allocation, so `resolve` takes a hint (the
allocation the previous lane used) and checks it before searching the table: one search per
warp-instruction instead of one per lane.  Loads and stores of 1, 2, 4 and 8 bytes are written
as one expression each, which the compiler turns into a single (unaligned) word access.
"""
from __future__ import annotations

import numpy as np

from simt_sim.engine.jit import compiled, compiled_inline
from simt_sim.isa import encoding as E
from simt_sim.machine.layout import (F_AT_GID, F_AT_PC, F_BAD_ACCESSES, F_MEMCHECK, FAULT_FIELDS, MC_ADDR, MC_GID,
                                     MC_KIND, MC_LANE, MC_OFFSET, MC_PC, MC_REASON, MC_SIZE, MC_SPACE,
                                     MEMCHECK_FIELDS)
from simt_sim.machine.state import ALLOC_BASE, ALLOC_END, ALLOC_OFF

R_NONE, R_GLOBAL, R_SHARED, R_LOCAL, R_PARAM = 0, 1, 2, 3, 4


@compiled
def generic_to_space(space, addr):
    """(state space, address within it) of an address; generic addresses by their window."""
    if space == E.SP_GENERIC:
        if E.SHARED_WINDOW <= addr < E.SHARED_WINDOW + E.WINDOW_SIZE:
            return E.SP_SHARED, addr - E.SHARED_WINDOW
        if E.LOCAL_WINDOW <= addr < E.LOCAL_WINDOW + E.WINDOW_SIZE:
            return E.SP_LOCAL, addr - E.LOCAL_WINDOW
        return E.SP_GLOBAL, addr
    return space, addr


@compiled
def lane_address(regs, aidx, aoff, t):
    """Address of a [reg+offset] operand for thread t (aidx < 0: the offset alone)."""
    addr = aoff
    if aidx >= 0:
        r = aidx & ((1 << E.ADDR_FILE_SHIFT) - 1)
        file = (aidx >> E.ADDR_FILE_SHIFT) & E.ADDR_FILE_MASK
        second = aidx >> E.ADDR_SECOND_SHIFT
        if second > 0:
            addr += np.int64(regs.r32[second - 1, t])
        if file == E.ADDR_R64:
            addr += np.int64(regs.r64[r, t])
        elif file == E.ADDR_RPAIR:
            addr += np.int64(regs.r32[r, t]) | (np.int64(regs.r32[r + 1, t]) << 32)
        elif file == E.ADDR_R32:
            addr += np.int64(regs.r32[r, t])
    return addr


@compiled
def cvta_value(v, space, to_space):
    """cvta: a state-space address to a generic one (or back with .to) through the space's window."""
    window = np.int64(0)
    if space == E.SP_SHARED:
        window = np.int64(E.SHARED_WINDOW)
    elif space == E.SP_LOCAL:
        window = np.int64(E.LOCAL_WINDOW)
    return v - window if to_space else v + window


@compiled
def find_allocation(allocs, addr, width, hint):
    """Index of the global allocation holding [addr, addr + width), or -1; `hint` is tried first."""
    if 0 <= hint < allocs.shape[0] and allocs[hint, ALLOC_BASE] <= addr and addr + width <= allocs[hint, ALLOC_END]:
        return hint
    for i in range(allocs.shape[0]):
        if allocs[i, ALLOC_BASE] <= addr and addr + width <= allocs[i, ALLOC_END]:
            return i
    return -1


@compiled
def resolve(mem, space, addr, width, slot, thread, shared_bytes, local_bytes, hint):
    """(region, byte offset, allocation) of an access; region R_NONE when out of bounds.
    The allocation index (global accesses) is the hint for the next lane."""
    space, addr = generic_to_space(space, addr)
    if space == E.SP_GLOBAL or space == E.SP_CONST:
        i = find_allocation(mem.allocs, addr, width, hint)
        if i < 0:
            return R_NONE, np.int64(0), hint
        return R_GLOBAL, mem.allocs[i, ALLOC_OFF] + addr - mem.allocs[i, ALLOC_BASE], i
    if space == E.SP_SHARED:
        if 0 <= addr and addr + width <= shared_bytes:
            return R_SHARED, slot * shared_bytes + addr, hint
        return R_NONE, np.int64(0), hint
    if space == E.SP_LOCAL:
        if 0 <= addr and addr + width <= local_bytes:
            return R_LOCAL, thread * local_bytes + addr, hint
        return R_NONE, np.int64(0), hint
    if space == E.SP_PARAM:
        if 0 <= addr and addr + width <= mem.pmem.shape[0]:
            return R_PARAM, addr, hint
    return R_NONE, np.int64(0), hint


N_FAULT_FIELDS = len(FAULT_FIELDS)
N_MEMCHECK_FIELDS = len(MEMCHECK_FIELDS)


@compiled
def access_fault(fault, reason, w, lane, addr, width):
    """Set the fault vector for a bad access by `lane` of warp slot w (pc 0: the caller fills in
    the warp's gid and pc)."""
    fault[0] = reason
    fault[1] = w
    fault[2] = lane
    fault[3] = 0
    fault[4] = addr
    fault[5] = width


@compiled
def bad_access(fault, reason, w, lane, space, addr, width, kind):
    """An out-of-bounds or misaligned access (reason FAULT_OOB / FAULT_MISALIGNED) by `lane` of
    warp slot w.  With memcheck off the fault is set (pc 0: the caller fills in gid and pc) and
    False returned.  With simt.memcheck=report it is counted, kept while the fault vector has room
    (a row of MEMCHECK_FIELDS, naming the warp and pc of fault[F_AT_GID / F_AT_PC]) and True is
    returned: the caller reads zeros and drops the write."""
    if fault[F_MEMCHECK] == 0:
        access_fault(fault, reason, w, lane, addr, width)
        return False
    n = fault[F_BAD_ACCESSES]
    fault[F_BAD_ACCESSES] = n + 1
    at = N_FAULT_FIELDS + n * N_MEMCHECK_FIELDS
    if at + N_MEMCHECK_FIELDS <= fault.shape[0]:
        sp, offset = generic_to_space(space, addr)
        fault[at + MC_GID] = fault[F_AT_GID]
        fault[at + MC_LANE] = lane
        fault[at + MC_PC] = fault[F_AT_PC]
        fault[at + MC_KIND] = kind
        fault[at + MC_REASON] = reason
        fault[at + MC_SPACE] = sp
        fault[at + MC_ADDR] = addr
        fault[at + MC_OFFSET] = offset
        fault[at + MC_SIZE] = width
    return True


@compiled
def read_word(buf, off, width):
    b0 = np.int64(buf[off])
    if width == 1:
        return b0
    v = b0 | (np.int64(buf[off + 1]) << 8)
    if width == 2:
        return v
    v |= (np.int64(buf[off + 2]) << 16) | (np.int64(buf[off + 3]) << 24)
    if width == 4:
        return v
    return (v | (np.int64(buf[off + 4]) << 32) | (np.int64(buf[off + 5]) << 40)
            | (np.int64(buf[off + 6]) << 48) | (np.int64(buf[off + 7]) << 56))


@compiled
def write_word(buf, off, width, value):
    """Little-endian store, unrolled per width like read_word so that the compiler can merge the
    byte stores of an aligned access into one."""
    buf[off] = np.uint8(value & 0xFF)
    if width == 1:
        return
    buf[off + 1] = np.uint8((value >> 8) & 0xFF)
    if width == 2:
        return
    buf[off + 2] = np.uint8((value >> 16) & 0xFF)
    buf[off + 3] = np.uint8((value >> 24) & 0xFF)
    if width == 4:
        return
    buf[off + 4] = np.uint8((value >> 32) & 0xFF)
    buf[off + 5] = np.uint8((value >> 40) & 0xFF)
    buf[off + 6] = np.uint8((value >> 48) & 0xFF)
    buf[off + 7] = np.uint8((value >> 56) & 0xFF)


@compiled_inline     # returns one of mem's arrays: only an inlined function may (no NRT)
def region_buffer(mem, region):
    if region == R_GLOBAL:
        return mem.gmem
    if region == R_SHARED:
        return mem.smem
    if region == R_LOCAL:
        return mem.lmem
    return mem.pmem


@compiled
def load(mem, region, off, width):
    return read_word(region_buffer(mem, region), off, width)


@compiled
def store(mem, region, off, width, value):
    write_word(region_buffer(mem, region), off, width, value)
