"""Launch shapes (Dim3) and CUDA's launch limits: the one place that says what a launch may ask for.

The limits are CUDA's (compute capability 5.0 and later), so a launch that the simulator accepts
would also launch on a GPU, and absurd shapes are refused before anything is allocated.
"""
from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral

from simt_sim.errors import InputError

MAX_GRID_X = 2**31 - 1
MAX_GRID_YZ = 65535
MAX_BLOCK_XY = 1024
MAX_BLOCK_Z = 64
MAX_BLOCK_THREADS = 1024            # x * y * z

# Other per-launch values, checked where a manifest or the command line gives them.
MAX_REGS_PER_THREAD = 255
MAX_DYNAMIC_SHARED = 2**31 - 1      # bytes; the config's shared memory is the real bound (occupancy)
MAX_STREAM = 2**31 - 1

AXIS_LIMITS = {"grid": (MAX_GRID_X, MAX_GRID_YZ, MAX_GRID_YZ),
               "block": (MAX_BLOCK_XY, MAX_BLOCK_XY, MAX_BLOCK_Z)}
AXES = "xyz"


@dataclass
class Dim3:
    x: int
    y: int = 1
    z: int = 1

    @property
    def count(self) -> int:
        return self.x * self.y * self.z

    @classmethod
    def of(cls, value) -> "Dim3":
        if isinstance(value, Dim3):
            return value
        if isinstance(value, int):
            return cls(value)
        v = list(value) + [1, 1]
        return cls(int(v[0]), int(v[1]), int(v[2]))

    def __str__(self) -> str:
        return f"({self.x},{self.y},{self.z})"


class DimsError(InputError):
    """A launch shape CUDA would refuse; `axis` is the offending component's index in the value
    given (None when the whole shape is at fault), so a manifest error can point at it."""

    def __init__(self, message: str, axis: int | None = None):
        super().__init__(message)
        self.axis = axis


def check_dims(value, kind: str) -> Dim3:
    """`value` (N, [x], [x, y], [x, y, z] or a Dim3) as a Dim3 within CUDA's limits for `kind`
    ("grid" or "block"); otherwise DimsError naming the dimension, the value and the limit."""
    parts = _components(value, kind)
    for axis, (n, limit) in enumerate(zip(parts, AXIS_LIMITS[kind])):
        if isinstance(n, bool) or not isinstance(n, Integral):
            raise DimsError(f"{kind} {AXES[axis]} must be an integer, found {n!r}", axis)
        if not 1 <= n <= limit:
            raise DimsError(f"{kind} {AXES[axis]} is {n}; CUDA allows 1 to {limit}", axis)
    dims = Dim3(*(int(n) for n in parts))
    if kind == "block" and dims.count > MAX_BLOCK_THREADS:
        raise DimsError(f"block {dims.x} x {dims.y} x {dims.z} has {dims.count} threads; "
                        f"CUDA allows at most {MAX_BLOCK_THREADS} per block")
    return dims


def _components(value, kind: str) -> list:
    if isinstance(value, Dim3):
        return [value.x, value.y, value.z]
    if isinstance(value, (list, tuple)):
        if 1 <= len(value) <= 3:
            return list(value)
        raise DimsError(f"{kind} must be N or [x, y, z] (1 to 3 integers), found {len(value)} values")
    return [value]
