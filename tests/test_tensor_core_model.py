"""The tensor-core arithmetic model (simt_sim/oracle/tensor_math.py) against the H100.

tests/data/h100/tensor_cores.npz holds, for every probe kernel of tests/cuda/tc_probe.cu, the D
bit patterns the H100 computed for the operand cases of simt_sim/calibrate/tensor_cases.py
(`probe_cases`); tests/data/h100/tensor_cores_extra.npz the same for `extra_probe_cases` (zeros,
tiny and subnormal values, overflow, f16 halfway points, zeros beside huge operands).  The
operands are regenerated here and checked against the recorded digests.  The model must
reproduce every element of both bit for bit, special values included; docs/tensor-cores.md
explains it.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from simt_sim.calibrate.tensor_cases import (
    EXTRA_CASES_PER_FAMILY, EXTRA_FAMILIES, FAMILIES, PROBE_KERNELS, cases_digest, extra_probe_cases, from_bits,
    probe_cases,
)
from simt_sim.oracle.tensor_math import NAN_BITS, mma_element, mma_tile

DATA = Path(__file__).resolve().parent / "data" / "h100" / "tensor_cores.npz"
EXTRA_DATA = DATA.with_name("tensor_cores_extra.npz")


def load(path):
    with np.load(path) as npz:
        arrays = {name: npz[name] for name in npz.files}
    return arrays, json.loads(str(arrays.pop("meta")))


@pytest.fixture(scope="module")
def recorded():
    return load(DATA)


@pytest.fixture(scope="module")
def cases():
    return {k.name: probe_cases(k) for k in PROBE_KERNELS}


@pytest.fixture(scope="module")
def extra_recorded():
    return load(EXTRA_DATA)


@pytest.fixture(scope="module")
def extra_cases():
    return {k.name: extra_probe_cases(k) for k in PROBE_KERNELS}


def mismatches_by_family(kernel, case, want, families=FAMILIES) -> dict[str, int]:
    got = mma_tile(case["a"], case["b"], case["c"], kernel.inputs, kernel.accumulator)
    assert got.shape == want.shape and got.dtype == want.dtype
    bad = got != want
    return {fam: int(bad[case["family"] == fam].sum()) for fam in families}


def scalar_mismatches(kernel, case, want, picked) -> list:
    """(case, row, column) of every element where mma_element differs from `want`."""
    bad = []
    for ci in picked:
        a, b, c = case["a"][ci].tolist(), case["b"][ci].T.tolist(), case["c"][ci].tolist()
        for i in range(kernel.m):
            for j in range(kernel.n):
                if mma_element(a[i], b[j], c[i][j], kernel.inputs, kernel.accumulator) != int(want[ci, i, j]):
                    bad.append((ci, i, j))
    return bad


@pytest.mark.parametrize("kernel", PROBE_KERNELS, ids=lambda k: k.name)
def test_operands_are_the_recorded_ones(kernel, recorded, cases):
    arrays, meta = recorded
    assert cases_digest(cases[kernel.name]) == meta["kernels"][kernel.name]["digest"]
    assert arrays[kernel.name].shape == (len(cases[kernel.name]["a"]), kernel.m, kernel.n)


@pytest.mark.parametrize("kernel", PROBE_KERNELS, ids=lambda k: k.name)
def test_model_reproduces_every_recorded_element(kernel, recorded, cases):
    arrays, _ = recorded
    bad = mismatches_by_family(kernel, cases[kernel.name], arrays[kernel.name])
    assert bad == {fam: 0 for fam in FAMILIES}, f"{kernel.name}: mismatching elements per family {bad}"


@pytest.mark.parametrize("kernel", PROBE_KERNELS, ids=lambda k: k.name)
def test_scalar_model_matches_the_hardware(kernel, recorded, cases):
    """mma_element (Python ints) on every 4th case of every family, specials in full."""
    arrays, _ = recorded
    case, want = cases[kernel.name], arrays[kernel.name]
    picked = [i for i, fam in enumerate(case["family"]) if fam == "special" or i % 4 == 0]
    bad = scalar_mismatches(kernel, case, want, picked)
    assert not bad, (kernel.name, len(bad), bad[:5])


@pytest.mark.parametrize("kernel", PROBE_KERNELS, ids=lambda k: k.name)
def test_extra_operands_are_the_recorded_ones(kernel, extra_recorded, extra_cases):
    arrays, meta = extra_recorded
    case = extra_cases[kernel.name]
    assert case["a"].shape == (len(EXTRA_FAMILIES) * EXTRA_CASES_PER_FAMILY, kernel.m, kernel.k)
    assert cases_digest(case) == meta["kernels"][kernel.name]["digest"]
    assert arrays[kernel.name].shape == (len(case["a"]), kernel.m, kernel.n)


@pytest.mark.parametrize("kernel", PROBE_KERNELS, ids=lambda k: k.name)
def test_model_reproduces_every_extra_element(kernel, extra_recorded, extra_cases):
    """Zero results (+0 always), subnormal operands and results, f32 overflow (infinity), f16
    halfway points, zeros beside huge operands (no part in the alignment)."""
    arrays, _ = extra_recorded
    bad = mismatches_by_family(kernel, extra_cases[kernel.name], arrays[kernel.name], EXTRA_FAMILIES)
    assert bad == {fam: 0 for fam in EXTRA_FAMILIES}, f"{kernel.name}: mismatching elements per family {bad}"


@pytest.mark.parametrize("kernel", PROBE_KERNELS, ids=lambda k: k.name)
def test_scalar_model_matches_the_extra_recording(kernel, extra_recorded, extra_cases):
    """mma_element on every case of the extra families."""
    arrays, _ = extra_recorded
    case = extra_cases[kernel.name]
    bad = scalar_mismatches(kernel, case, arrays[kernel.name], range(len(case["a"])))
    assert not bad, (kernel.name, len(bad), bad[:5])


def test_the_hardware_is_not_correctly_rounded(recorded, cases):
    """What the model is for: the f32 results differ from the correctly rounded A*B + C in many
    elements."""
    arrays, _ = recorded
    for kernel in PROBE_KERNELS:
        if kernel.accumulator != "f32":
            continue
        case, want = cases[kernel.name], arrays[kernel.name]
        sel = case["family"] == "uniform"
        exact = (from_bits(case["a"][sel], kernel.inputs) @ from_bits(case["b"][sel], kernel.inputs)
                 + from_bits(case["c"][sel], kernel.accumulator))       # float64: within 2^-50
        assert np.mean(exact.astype(np.float32).view(np.uint32) != want[sel]) > 0.1, kernel.name


def test_specials_and_exact_cases():
    one, two, inf, nan, neg_zero = 0x3C00, 0x4000, 0x7C00, 0x7E00, 0x8000    # f16 bits
    pad = [0] * 14
    elem = lambda a, b, c, acc="f32": mma_element(a + pad, b + pad, c, "f16", acc)  # noqa: E731
    assert elem([one, two], [two, two], 0x3F800000) == 0x40E00000              # 1*2 + 2*2 + 1 = 7
    assert elem([inf, one], [one, one], 0) == 0x7F800000
    assert elem([inf, one], [0x8000 | one, one], 0) == 0xFF800000
    assert elem([inf, inf], [one, 0x8000 | one], 0) == NAN_BITS["f32"]          # inf - inf
    assert elem([inf, one], [0, one], 0) == NAN_BITS["f32"]                      # inf * 0
    assert elem([nan, one], [one, one], 0, "f16") == NAN_BITS["f16"]
    assert elem([one, one], [one, 0x8000 | one], 0) == 0                         # exact cancellation: +0
    assert elem([one, one], [one, 0x8000 | one], 0, "f16") == 0
    assert mma_element([neg_zero] * 16, [one] * 16, 0x80000000, "f16", "f32") == 0   # all -0: still +0
    assert mma_element([neg_zero] * 16, [one] * 16, 0x8000, "f16", "f16") == 0
    assert elem([0x8001], [0x0001], 0, "f16") == 0             # -2^-48 rounds (to nearest) to +0
    bf16 = lambda a, b, c: mma_element(a + pad, b + pad, c, "bf16", "f32")  # noqa: E731
    assert bf16([0x9780], [0x1780], 0) == 0                    # -2^-160 rounds (toward zero) to +0
    assert elem([0x0001], [0x3C00], 0) == 0x33800000           # subnormal f16 input, exact: 2^-24
    assert bf16([0x0001], [0x3F80], 0x00000001) == 0x00010001  # subnormal bf16 and f32 C kept
    # f32 overflow is infinity, although the rounding is toward zero
    big = 0x7F7F                                                # bf16 3.39e38
    assert bf16([big, big], [0x3F80, 0x3F80], 0) == 0x7F800000
    assert bf16([big, 0], [0xBF80, 0], 0xFF7FFFFF) == 0xFF800000
    assert bf16([big, 0], [0x3F80, 0], 0) == 0x7F7F0000
    # the 25-bit window below a product of 1: -2^-26 is cut off, -2^-25 is kept (then toward zero)
    assert elem([one, 0x8800], [one, 0x0800], 0) == 0x3F800000                 # 1 - 2^-13 * 2^-13
    assert elem([one, 0x8C00], [one, 0x0800], 0) == 0x3F7FFFFF                 # 1 - 2^-12 * 2^-13


