"""Operands for the tensor-core differential tests: the cases tools/record_tensor_cores.py runs on
the H100 (tests/cuda/tc_probe.cu) and the simulator is compared with.

The cases are regenerated here, not stored: numpy's legacy `RandomState` stream is frozen, and
the recorded reference keeps a hash of the operands so that a change here is noticed.  Families
are chosen to tell accumulation orders and internal widths apart: sums that cancel, terms whose
exponents are far apart, a C that dominates the products, exact powers of two, and special
values (subnormals, zeros, infinities, NaN).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ProbeKernel:
    name: str        # the kernel in tests/cuda/tc_probe.cu
    m: int
    n: int
    k: int
    inputs: str      # f16 or bf16
    accumulator: str  # f32 or f16


PROBE_KERNELS = [
    ProbeKernel("mma_m16n8k16_f16_f32", 16, 8, 16, "f16", "f32"),
    ProbeKernel("mma_m16n8k16_bf16_f32", 16, 8, 16, "bf16", "f32"),
    ProbeKernel("mma_m16n8k8_f16_f32", 16, 8, 8, "f16", "f32"),
    ProbeKernel("mma_m16n8k8_bf16_f32", 16, 8, 8, "bf16", "f32"),
    ProbeKernel("mma_m16n8k16_f16_f16", 16, 8, 16, "f16", "f16"),
    ProbeKernel("wmma_m16n16k16_f16_f32", 16, 16, 16, "f16", "f32"),
    ProbeKernel("wmma_m32n8k16_f16_f32", 32, 8, 16, "f16", "f32"),
    ProbeKernel("wmma_m8n32k16_f16_f32", 8, 32, 16, "f16", "f32"),
    ProbeKernel("wmma_m16n16k16_bf16_f32", 16, 16, 16, "bf16", "f32"),
    ProbeKernel("wmma_m16n16k16_f16_f16", 16, 16, 16, "f16", "f16"),
]
FAMILIES = ("uniform", "wide", "powers", "cancel", "c_dominant", "special")
CASES_PER_FAMILY = 40


def bf16_bits(x: np.ndarray) -> np.ndarray:
    """float32 values rounded to bfloat16 (nearest, ties to even), as uint16 bit patterns."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    nan = np.isnan(np.asarray(x, np.float32))
    return np.where(nan, 0x7FC0, rounded).astype(np.uint16)


def to_bits(x: np.ndarray, kind: str) -> np.ndarray:
    """float values as f16 / bf16 / f32 bit patterns (nearest rounding)."""
    if kind == "f16":
        with np.errstate(over="ignore"):          # infinities are among the special values
            return np.asarray(x, np.float32).astype(np.float16).view(np.uint16)
    if kind == "bf16":
        return bf16_bits(x)
    return np.asarray(x, np.float32).view(np.uint32)


def from_bits(bits: np.ndarray, kind: str) -> np.ndarray:
    """bit patterns back to float64 values."""
    if kind == "f16":
        return bits.astype(np.uint16).view(np.float16).astype(np.float64)
    if kind == "bf16":
        return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return bits.astype(np.uint32).view(np.float32).astype(np.float64)


def max_exponent(kind: str) -> int:
    return 15 if kind == "f16" else 60      # bf16 could go to 127; keep products finite in f32


def family_values(rng: np.random.RandomState, family: str, shape, kind: str, role: str) -> np.ndarray:
    """float64 values of one operand (role a, b or c) for one case of a family."""
    top = max_exponent(kind)
    if family == "uniform":
        return rng.uniform(-1, 1, shape)
    if family == "wide":
        return rng.choice([-1, 1], shape) * rng.uniform(1, 2, shape) * 2.0 ** rng.randint(-top // 2, top // 2, shape)
    if family == "powers":           # exact powers: the products are exact, only the sum rounds
        return rng.choice([-1, 1], shape) * 2.0 ** rng.randint(-12, 12, shape)
    if family == "cancel":           # pairs of equal and opposite large terms plus small ones
        v = rng.uniform(1, 2, shape) * 2.0 ** rng.randint(-8, 1, shape)
        if role == "a":
            v[..., 1::2] = -v[..., 0::2]
            v[..., 0:2] *= 2.0 ** rng.randint(4, 10)
        if role == "b":
            v[..., 1::2, :] = v[..., 0::2, :]
        return v * rng.choice([-1, 1])
    if family == "c_dominant":
        top_c = 20 if kind == "f32" else 12           # an f16 C stays finite
        scale = 2.0 ** rng.randint(top_c - 12, top_c) if role == "c" else 1.0
        return rng.uniform(-1, 1, shape) * scale
    if family == "special":
        v = rng.uniform(-2, 2, shape)
        pick = rng.uniform(0, 1, shape)
        tiny = 2.0 ** (-20 if kind == "f16" else -130)
        v = np.where(pick < 0.10, v * tiny, v)                       # subnormal inputs
        v = np.where((pick >= 0.10) & (pick < 0.16), 0.0, v)
        v = np.where((pick >= 0.16) & (pick < 0.18), -0.0, v)
        v = np.where((pick >= 0.18) & (pick < 0.19), np.inf, v)
        v = np.where((pick >= 0.19) & (pick < 0.195), np.nan, v)
        return v
    raise ValueError(family)


def probe_cases(kernel: ProbeKernel, seed: int = 2026) -> dict[str, np.ndarray]:
    """A, B, C of every case as bit patterns (A: [cases, m, k], B: [cases, k, n], C: [cases, m, n]),
    and the family of each case."""
    rng = np.random.RandomState(seed + sum(kernel.name.encode()))
    a, b, c, fam = [], [], [], []
    for family in FAMILIES:
        for _ in range(CASES_PER_FAMILY):
            a.append(to_bits(family_values(rng, family, (kernel.m, kernel.k), kernel.inputs, "a"), kernel.inputs))
            b.append(to_bits(family_values(rng, family, (kernel.k, kernel.n), kernel.inputs, "b"), kernel.inputs))
            c.append(to_bits(family_values(rng, family, (kernel.m, kernel.n), kernel.accumulator, "c"),
                             kernel.accumulator))
            fam.append(family)
    return {"a": np.stack(a), "b": np.stack(b), "c": np.stack(c), "family": np.array(fam)}


def cases_digest(cases: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    for key in ("a", "b", "c"):
        h.update(np.ascontiguousarray(cases[key]).tobytes())
    return h.hexdigest()
