"""Float values from register bits and back (float32 in a 32-bit word, float64 in 64 bits).

They are scalar bit casts (`np.uint32(b).view(np.float32)`), which numba compiles to a register
move: no allocation, so the lane loops that call them need no reference counting.  Also the bits
of the H100's NaN results where they are not the canonical NaN (measured by the
s-* differential programs), shared by the PTX and SASS paths."""
from __future__ import annotations

import numpy as np

from simt_sim.engine.jit import compiled

MASK32 = np.int64(0xFFFFFFFF)
F64_ABS = np.int64(0x7FFFFFFFFFFFFFFF)
F64_INF = np.int64(0x7FF0000000000000)
F64_QUIET = np.int64(0x0008000000000000)


@compiled
def f32_from_bits(bits):
    return np.uint32(bits & MASK32).view(np.float32)


@compiled
def f32_to_bits(x):
    return np.int64(np.float32(x).view(np.uint32))


@compiled
def f64_from_bits(bits):
    return np.int64(bits).view(np.float64)


@compiled
def f64_to_bits(x):
    return np.float64(x).view(np.int64)


@compiled
def dfma_nan(ra, rb, rc):
    """The result bits of DFMA a, b, c (DADD/DMUL: c = 0) when a source is a NaN, else 0 (never a
    NaN's bits): the first NaN in the order b, c, a, quieted, as the H100 passes them on (s-fp64,
    s-tensor's DMMA).  Sources are raw register bits: a NaN keeps its sign through |x| and -x."""
    if (rb & F64_ABS) > F64_INF:
        return rb | F64_QUIET
    if (rc & F64_ABS) > F64_INF:
        return rc | F64_QUIET
    if (ra & F64_ABS) > F64_INF:
        return ra | F64_QUIET
    return np.int64(0)


@compiled
def nan_as_int(to_zero, bits):
    """A NaN converted to a `bits`-wide integer: 0 where ptxas asks for it (F2I.NTZ, which it
    emits for float32 and half sources into at most 32 bits), else the integer minimum's bit
    pattern, signed destination or not (s-convert)."""
    if to_zero:
        return np.int64(0)
    return np.int64(-0x8000000000000000) if bits == 64 else np.int64(1) << (bits - 1)


@compiled
def widened_f32_nan(v):
    """F2F.F64.F32 of the float32 NaN bits v: its sign and payload kept, quieted (the register's
    NaN: |x| and -x do not apply to it; generated corpus k00019)."""
    r = np.int64(0x7FF8000000000000) | ((np.int64(v) & 0x7FFFFF) << 29)
    if (v >> 31) & 1:
        r |= np.int64(-0x8000000000000000)
    return r


@compiled
def narrowed_f64_nan(v, half, bf):
    """F2F of the float64 NaN bits v to float32 (half False) or to f16 / bf16: the sign and the
    top bits of the payload kept, quieted (s-convert)."""
    sign = (v >> 63) & 1
    if not half:
        return (sign << 31) | 0x7FC00000 | ((v >> 29) & 0x3FFFFF)
    if bf:
        return (sign << 15) | 0x7FC0 | ((v >> 45) & 0x3F)
    return (sign << 15) | 0x7E00 | ((v >> 42) & 0x1FF)
