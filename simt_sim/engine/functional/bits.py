"""Float values from register bits and back (float32 in a 32-bit word, float64 in 64 bits).

They go through a one-element array view, an allocation, so they are compiled `allocating`."""
from __future__ import annotations

import numpy as np

from simt_sim.engine.jit import allocating

MASK32 = np.int64(0xFFFFFFFF)


@allocating
def f32_from_bits(bits):
    return np.array([bits & MASK32], dtype=np.uint32).view(np.float32)[0]


@allocating
def f32_to_bits(x):
    return np.int64(np.array([x], dtype=np.float32).view(np.uint32)[0])


@allocating
def f64_from_bits(bits):
    return np.array([bits], dtype=np.int64).view(np.float64)[0]


@allocating
def f64_to_bits(x):
    return np.array([x], dtype=np.float64).view(np.int64)[0]
