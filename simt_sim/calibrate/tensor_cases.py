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


# ---------------------------------------------------------------------------------------------
# Further probes for behaviour the cases above leave open (docs/tensor-cores.md), recorded in
# tests/data/h100/tensor_cores_extra.npz.
# A new function, so probe_cases() and the recorded digests stay as they are.
# ---------------------------------------------------------------------------------------------

EXTRA_FAMILIES = ("zeros", "tiny", "overflow", "f16_ties", "zero_exponent")
EXTRA_CASES_PER_FAMILY = 16


def _pow2(rng: np.random.RandomState, lo: int, hi: int, shape) -> np.ndarray:
    return rng.choice([-1.0, 1.0], shape) * 2.0 ** rng.randint(lo, hi, shape)


def extra_family_values(rng: np.random.RandomState, family: str, kernel: ProbeKernel):
    """float64 A [m, k], B [k, n], C [m, n] of one case of an extra family."""
    m, n, k, inp, acc = kernel.m, kernel.n, kernel.k, kernel.inputs, kernel.accumulator
    sign = lambda shape: rng.choice([-1.0, 1.0], shape)  # noqa: E731
    if family == "zeros":
        # the sign of an exactly zero result: rows of zeros (all +0, all -0 or mixed) against
        # columns of one sign, so that every product is -0 in some elements; and rows whose
        # products cancel exactly.  C is +0 or -0
        b = np.abs(rng.uniform(1, 2, (k, n))) * sign(n)[None, :]
        a = sign((m, k)) * rng.uniform(1, 2, (m, k))
        a[:, 1::2] = -a[:, 0::2]
        b[1::2, :] = b[0::2, :]
        kind = rng.randint(0, 4, m)                # 0: +0 row, 1: -0 row, 2: mixed zeros, 3: cancel
        a[kind == 0] = 0.0
        a[kind == 1] = -0.0
        a[kind == 2] = sign((int((kind == 2).sum()), k)) * 0.0
        return a, b, sign((m, n)) * 0.0
    if family == "tiny":
        # subnormal results and subnormal operands that matter: every term near the bottom of
        # the formats (f16 inputs: f16 subnormals; bf16: products near 2^-130; C subnormal);
        # rows of zeros in A, where C alone decides
        if inp == "f16":
            a = sign((m, k)) * rng.uniform(0, 1, (m, k)) * 2.0 ** rng.randint(-24, -10, (m, k))
            b = sign((k, n)) * rng.uniform(1, 2, (k, n)) * 2.0 ** rng.randint(-24, 0, (k, n))
        else:
            a = sign((m, k)) * rng.uniform(0, 2, (m, k)) * 2.0 ** rng.randint(-133, -60, (m, k))
            b = sign((k, n)) * rng.uniform(1, 2, (k, n)) * 2.0 ** rng.randint(-70, 0, (k, n))
        if acc == "f32":
            c = sign((m, n)) * rng.uniform(0, 1, (m, n)) * 2.0 ** rng.randint(-149, -120, (m, n))
        else:
            c = sign((m, n)) * rng.uniform(0, 1, (m, n)) * 2.0 ** rng.randint(-24, -12, (m, n))
        a[rng.uniform(0, 1, (m, k)) < 0.3] = 0.0
        a[rng.uniform(0, 1, m) < 0.25] = 0.0
        return a, b, c
    if family == "overflow":
        # sums beyond the accumulator's range: bf16 products up to 2^130, f16 sums up to 2^20;
        # C near the top of its format
        top = 66 if inp == "bf16" else 8
        a = sign((m, k)) * rng.uniform(1, 2, (m, k)) * 2.0 ** rng.randint(top - 4, top, (m, k))
        b = sign((k, n)) * rng.uniform(1, 2, (k, n)) * 2.0 ** rng.randint(top - 4, top, (k, n))
        b[:, : n // 2] = np.abs(b[:, : n // 2]) * np.sign(a[0, :])[:, None]   # same-sign sums
        ctop = 127 if acc == "f32" else 15
        c = sign((m, n)) * rng.uniform(1, 2, (m, n)) * 2.0 ** rng.randint(ctop - 3, ctop + 1, (m, n))
        return a, b, c
    if family == "f16_ties":
        # f16 results: a sum a hair from a halfway point, 1 (or 1 + ulp) + half an ulp +- 2^-t,
        # t from 9 to 38 (are the bits below the 25-bit window kept; is the sum first cut to
        # 24 bits?).  f32 results: 1 (or 1 + ulp) +- 2^-t, the window's edge under truncation
        a = np.zeros((m, k))
        b = np.ones((k, n))
        a[:, 0] = 1.0 + 2.0 ** (-10 if acc == "f16" else -23) * rng.randint(0, 2, m)
        a[:, 1] = 2.0 ** -11 if acc == "f16" else 0.0
        a[:, 2] = sign(m) * 2.0 ** rng.randint(-14, -8, m)
        b[2, :] = 2.0 ** -rng.randint(0, 25, n)
        return a, b, sign((m, n)) * 0.0
    if family == "zero_exponent":
        # do zeros take part in the alignment by their exponent field?  Tiny products, plus
        # zeros in a few columns of A that meet the largest finite B; C is zero
        lo = -10 if inp == "f16" else -80
        a = sign((m, k)) * rng.uniform(1, 2, (m, k)) * 2.0 ** lo
        b = sign((k, n)) * rng.uniform(1, 2, (k, n)) * 2.0 ** lo
        cols = rng.uniform(0, 1, k) < 0.25
        a[:, cols] = sign((m, int(cols.sum()))) * 0.0
        b[cols, :] = sign((int(cols.sum()), n)) * 2.0 ** (15 if inp == "f16" else 127)
        return a, b, sign((m, n)) * 0.0
    raise ValueError(family)


def extra_probe_cases(kernel: ProbeKernel, seed: int = 4052) -> dict[str, np.ndarray]:
    """Like probe_cases, for EXTRA_FAMILIES (EXTRA_CASES_PER_FAMILY cases each)."""
    rng = np.random.RandomState(seed + sum(kernel.name.encode()))
    a, b, c, fam = [], [], [], []
    for family in EXTRA_FAMILIES:
        for _ in range(EXTRA_CASES_PER_FAMILY):
            va, vb, vc = extra_family_values(rng, family, kernel)
            with np.errstate(over="ignore"):
                a.append(to_bits(va, kernel.inputs))
                b.append(to_bits(vb, kernel.inputs))
                c.append(to_bits(vc, kernel.accumulator))
            fam.append(family)
    return {"a": np.stack(a), "b": np.stack(b), "c": np.stack(c), "family": np.array(fam)}
