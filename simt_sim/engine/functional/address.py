"""Address translation, bounds checks and little-endian loads/stores for every state space."""
from __future__ import annotations

import numpy as np

from simt_sim.isa import encoding as E
from simt_sim.engine.jit import compiled

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
def resolve(mem, space, addr, width, slot, thread, shared_bytes, local_bytes):
    """(region, byte offset) of an access, or (R_NONE, 0) when out of bounds."""
    space, addr = generic_to_space(space, addr)
    if space == E.SP_GLOBAL or space == E.SP_CONST:
        for i in range(mem.alloc_base.shape[0]):
            if mem.alloc_base[i] <= addr and addr + width <= mem.alloc_end[i]:
                return R_GLOBAL, mem.alloc_off[i] + addr - mem.alloc_base[i]
        return R_NONE, np.int64(0)
    if space == E.SP_SHARED:
        if 0 <= addr and addr + width <= shared_bytes:
            return R_SHARED, slot * shared_bytes + addr
        return R_NONE, np.int64(0)
    if space == E.SP_LOCAL:
        if 0 <= addr and addr + width <= local_bytes:
            return R_LOCAL, thread * local_bytes + addr
        return R_NONE, np.int64(0)
    if space == E.SP_PARAM:
        if 0 <= addr and addr + width <= mem.pmem.shape[0]:
            return R_PARAM, addr
    return R_NONE, np.int64(0)


@compiled
def _read_bytes(buf, off, width):
    v = np.int64(0)
    for k in range(width):
        v |= np.int64(buf[off + k]) << (8 * k)
    return v


@compiled
def _write_bytes(buf, off, width, value):
    for k in range(width):
        buf[off + k] = np.uint8((value >> (8 * k)) & 0xFF)


@compiled
def load(mem, region, off, width):
    if region == R_GLOBAL:
        return _read_bytes(mem.gmem, off, width)
    if region == R_SHARED:
        return _read_bytes(mem.smem, off, width)
    if region == R_LOCAL:
        return _read_bytes(mem.lmem, off, width)
    return _read_bytes(mem.pmem, off, width)


@compiled
def store(mem, region, off, width, value):
    if region == R_GLOBAL:
        _write_bytes(mem.gmem, off, width, value)
    elif region == R_SHARED:
        _write_bytes(mem.smem, off, width, value)
    elif region == R_LOCAL:
        _write_bytes(mem.lmem, off, width, value)
    else:
        _write_bytes(mem.pmem, off, width, value)
