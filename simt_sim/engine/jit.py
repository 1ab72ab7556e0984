"""The engine's compile decorators.

Engine functions work on arrays that the launch owns for the whole run, so they are compiled
without numba's reference counting (`_nrt=False`).  With it, every call that passes the state
tuples pays two atomic operations per array they hold (some forty arrays per warp-instruction),
which cost far more than the simulated instruction.  Numba refuses to compile an allocation in
such a function or anything it calls, so the few functions that allocate say `_nrt=True`
explicitly (a callee otherwise inherits its caller's setting).
"""
from __future__ import annotations

from numba import njit

compiled = njit(cache=True, _nrt=False)
compiled_inline = njit(cache=True, _nrt=False, inline="always")   # small helpers used in lane loops
allocating = njit(cache=True, _nrt=True)
