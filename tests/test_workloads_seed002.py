"""Seed 002 workloads (programs/workloads/w-ilp-*, w-warpspec-*, w-matmul-*; studies ilp, warp-specialisation,
matmul): outputs bit for bit against numpy references that compute each part in its own precision,
and per study the direction of the effect in simulated cycles (docs/workloads.md)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

import simt_sim
from simt_sim.calibrate.study import find_study
from simt_sim.frontend.manifest import load_manifest
from simt_sim.isa import encoding as E
from simt_sim.oracle.interpreter import fma_rn
from simt_sim.programs import program_dir

ROOT = Path(__file__).resolve().parent.parent
STUDIES = ROOT / "studies"


def manifest_inputs(name: str) -> tuple[dict[str, np.ndarray], list]:
    """The manifest's initial buffers (as the run makes them) and its kernel arguments."""
    m = load_manifest(str(program_dir(name)))
    return {s.name: s.make() for s in m.buffers}, list(m.args)


def assert_bits_equal(got: np.ndarray, want: np.ndarray, what: str) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got.dtype, want.dtype, got.shape, want.shape)
    bits = f"u{got.itemsize}"
    bad = np.flatnonzero(got.view(bits) != want.view(bits))
    assert bad.size == 0, (f"{what}: {bad.size} of {got.size} elements differ, first at {bad[:4].tolist()}: "
                           f"got {got[bad[:4]]}, want {want[bad[:4]]}")


# ---- numpy references -------------------------------------------------------------------------

def fma_f32(a, b, c) -> np.ndarray:
    """float32 a * b + c rounded once, elementwise.  The product of two floats is exact in double;
    TwoSum gives the sum's rounding error e; rounding the double sum to odd (move one ulp towards e
    when inexact and the last bit is even) and then to float32 is exact, since 53 >= 2 * 24 + 2."""
    a, b, c = (np.asarray(v, np.float32).astype(np.float64) for v in (a, b, c))
    p = a * b
    s = p + c
    bp = s - c
    e = (p - bp) + (c - (s - bp))
    even = (s.view(np.int64) & 1) == 0
    odd = np.where((e != 0) & even, np.nextafter(s, np.where(e > 0, np.inf, -np.inf)), s)
    return odd.astype(np.float32)


def ilp_reference(inp: np.ndarray, n: int, form: str, m: float, md: float, iters: int):
    """programs/include/w_ilp.cuh: (out32, out64)."""
    v = inp.astype(np.float32)
    m32, md64 = np.float32(m), np.float64(md)
    first = 0 if form == "fp32" else 1
    x = [v + np.float32(k * 2.0 ** -10) for k in range(n)]
    d = v.astype(np.float64)
    for _ in range(iters):
        if form == "mixed":
            d = d * md64
        for k in range(first, n):
            x[k] = x[k] * m32
        if form == "dep":
            d = d * x[n - 1].astype(np.float64)
    s = x[first]
    for k in range(first + 1, n):
        s = s + x[k]
    return s, d


def ilp_paper_reference(values: np.ndarray, n: int, mixed: bool, iters: int, threads: int) -> np.ndarray:
    """programs/include/w_ilp_paper.cuh: out = (float)(a + b), the same in every thread."""
    s = values.astype(np.float32)
    a, b = np.float64(1.0), np.float32(1.0)
    for i in range(iters):
        if mixed:
            a = a * np.float64(s[i % 32])
        for j in range(n - 1 if mixed else n):
            b = np.float32(b * s[(i + j) % 32])
    return np.full(threads, np.float32(a + np.float64(b)), np.float32)


def warpspec_reference(inp: np.ndarray, fp64_warps: int, m: float, md: float, iters: int, block: int = 1024):
    """programs/include/w_warpspec.cuh: (out32, out64); 8 dependent multiplies per iteration."""
    v = inp.astype(np.float32)
    in_fp64 = (np.arange(v.size) % block) // 32 < fp64_warps
    x, d = v.copy(), v.astype(np.float64)
    m32, md64 = np.float32(m), np.float64(md)
    for _ in range(8 * iters):
        x = x * m32
        d = d * md64
    return np.where(in_fp64, np.float32(0), x), np.where(in_fp64, d, 0.0)


def matmul_reference(a: np.ndarray, b: np.ndarray, n: int, form: str, fp64_warps: int = 0) -> np.ndarray:
    """programs/include/w_matmul.cuh: C, each product accumulated in its form's precision, in k order.
    FP32: acc = fma(a, b, acc); FP64: acc64 += (double)(float)(a * b); C = (float)((double)acc + acc64)."""
    a, b = a.reshape(n, n).astype(np.float32), b.reshape(n, n).astype(np.float32)
    rows_fp64 = np.zeros((n, 1), bool)
    if form == "warpspec":
        rows_fp64[:, 0] = np.arange(n) % 32 < fp64_warps
    acc = np.zeros((n, n), np.float32)
    acc64 = np.zeros((n, n), np.float64)
    for k in range(n):
        col, row = a[:, k:k + 1], b[k:k + 1, :]
        to_fp64 = (k % 4 == 0) if form == "ilp" else rows_fp64
        fused = fma_f32(col, row, acc)
        product = (col * row).astype(np.float64)           # float32 product, then widened
        acc = np.where(to_fp64, acc, fused)
        acc64 = np.where(to_fp64, acc64 + product, acc64)
    if form in ("plain", "pipeline"):
        return acc.reshape(-1)
    return (acc.astype(np.float64) + acc64).astype(np.float32).reshape(-1)


# ---- the reference itself ----------------------------------------------------------------------

def test_fma_f32_rounds_once():
    # exact a * b + c = 1 + 2^-11 + 2^-24 + 2^-70: rounded to double first it is the float32
    # midpoint 1 + 2^-11 + 2^-24, which ties to even (down); rounded once it goes up.
    a = b = np.float32(1 + 2.0 ** -12)
    c = np.float32(2.0 ** -70)
    assert fma_f32(a, b, c) == np.float32(1 + 2.0 ** -11 + 2.0 ** -23)
    assert np.float32(np.float64(a) * np.float64(b) + np.float64(c)) == np.float32(1 + 2.0 ** -11)
    # and the oracle's exact-rational fma on random operands
    rng = np.random.default_rng(5)
    x, y, z = (rng.uniform(-1, 1, 4000).astype(np.float32) for _ in range(3))
    z[::2] *= np.float32(2.0 ** -20)            # near-cancellation and tiny addends
    got = fma_f32(x, y, z)
    want = np.array([fma_rn(x[i], y[i], z[i], E.T_F32) for i in range(x.size)], np.float32)
    assert_bits_equal(got, want, "fma_f32")


# ---- outputs against numpy ----------------------------------------------------------------------

ILP = [(n, form) for n in (8, 16, 32) for form in ("fp32", "mixed", "dep")]


# The output tests check each workload's algorithm against numpy on the PTX (the functional PTX
# path runs these kernels 4-30x faster); test_validate.py compares the SASS outputs with the H100's.
@pytest.mark.parametrize("n,form", ILP, ids=[f"w-ilp-{f}-n{n}" for n, f in ILP])
def test_ilp_outputs(n, form):
    name = f"w-ilp-{form}-n{n}"
    bufs, args = manifest_inputs(name)
    m, md, iters = args[4:7]
    result = simt_sim.run_program(program_dir(name), functional=True, isa="ptx")
    out32, out64 = ilp_reference(bufs["inp"], n, form, m, md, iters)
    assert_bits_equal(result.outputs["out32"], out32, f"{name} out32")
    assert_bits_equal(result.outputs["out64"], out64, f"{name} out64")


@pytest.mark.parametrize("n,form", [(8, "fp32"), (8, "mixed"), (32, "fp32"), (32, "mixed")])
def test_ilp_paper_form_outputs(n, form):
    name = f"w-ilp-paper-{form}-n{n}"
    bufs, args = manifest_inputs(name)
    result = simt_sim.run_program(program_dir(name), functional=True, isa="ptx")
    want = ilp_paper_reference(bufs["values"], n, form == "mixed", args[3], bufs["out"].size)
    assert_bits_equal(result.outputs["out"], want, f"{name} out")


@pytest.mark.parametrize("fp64_warps", [0, 4, 8, 32])
def test_warpspec_outputs(fp64_warps):
    name = f"w-warpspec-fp64w{fp64_warps}"
    bufs, args = manifest_inputs(name)
    m, md, iters, warps = args[4:8]
    assert warps == fp64_warps
    result = simt_sim.run_program(program_dir(name), functional=True, isa="ptx")
    out32, out64 = warpspec_reference(bufs["inp"], fp64_warps, m, md, iters)
    assert_bits_equal(result.outputs["out32"], out32, f"{name} out32")
    assert_bits_equal(result.outputs["out64"], out64, f"{name} out64")
    if 0 < fp64_warps < 32:                         # both precisions really present and different
        assert (out64 != 0).sum() == 4 * 32 * fp64_warps and (out32 != 0).sum() == 4 * 32 * (32 - fp64_warps)


MATMUL = [("w-matmul-plain", "plain", 0), ("w-matmul-ilp", "ilp", 0), ("w-matmul-warpspec4", "warpspec", 4),
          ("w-matmul-warpspec8", "warpspec", 8), ("w-matmul-pipeline", "pipeline", 0)]


@pytest.mark.parametrize("name,form,fp64_warps", MATMUL, ids=[m[0] for m in MATMUL])
def test_matmul_outputs(name, form, fp64_warps):
    bufs, args = manifest_inputs(name)
    n = args[4]
    assert args[5] == fp64_warps
    result = simt_sim.run_program(program_dir(name), functional=True, isa="ptx")
    want = matmul_reference(bufs["A"], bufs["B"], n, form, fp64_warps)
    assert_bits_equal(result.outputs["C"], want, f"{name} C")
    if form != "plain":      # the mixed-precision forms round differently from FP32 alone
        plain = matmul_reference(bufs["A"], bufs["B"], n, "plain")
        assert (want != plain).any() == (form != "pipeline")


# ---- timed runs: deterministic, and the effects' direction ------------------------------------

_TIMED: dict[str, simt_sim.Result] = {}


def timed(name: str) -> simt_sim.Result:
    """One timed run per program for the whole module (the study tests share them)."""
    if name not in _TIMED:
        _TIMED[name] = simt_sim.run_program(program_dir(name), isa="ptx")   # the PTX model these tests reason about
    return _TIMED[name]


def block_span(result: simt_sim.Result) -> int:
    """The longest per-block clk span (end - start)."""
    clk = result.outputs["clk"].reshape(-1, 2).astype(np.int64)
    return int((clk[:, 1] - clk[:, 0]).max())


def study(name: str) -> dict:
    return yaml.safe_load((STUDIES / f"{name}.yaml").read_text())


def study_cycles(name: str) -> dict[str, int]:
    doc = study(name)
    return {v["name"]: timed(v["program"]).cycles for v in doc["variants"]}


def speedup(cycles: dict[str, int], doc: dict, variant: dict) -> float:
    base = variant.get("base", doc["variants"][0]["name"])
    return cycles[base] / cycles[variant["name"]]


def test_studies_load_and_name_existing_programs_and_bases():
    # through the loader `simt-sim study` uses (schema, bases, programs)
    for name in ("ilp", "warp-specialisation", "matmul"):
        s = find_study(ROOT, name)
        assert s.seed == "002" and s.title and s.description
        names = [v.name for v in s.variants]
        assert len(set(names)) == len(names)
        for v in s.variants:
            assert (program_dir(v.program) / "manifest.yaml").exists(), v
            assert v.base in names, v


def test_matmul_timed_run_is_bit_exact_and_repeatable():
    # The same outputs as the functional run, and the same cycles and outputs on a second run.
    first = timed("w-matmul-ilp")
    functional = simt_sim.run_program(program_dir("w-matmul-ilp"), functional=True, isa="ptx")
    again = simt_sim.run_program(program_dir("w-matmul-ilp"), isa="ptx")      # as timed() runs it
    assert first.outputs["C"].tobytes() == functional.outputs["C"].tobytes()
    assert first.outputs["C"].tobytes() == again.outputs["C"].tobytes()
    assert first.cycles == again.cycles
    assert np.array_equal(first.outputs["clk"], again.outputs["clk"])


def test_ilp_study_direction():
    # The paper (A100, 2:1 FP32:FP64 throughput) gains ~5% by moving one of n >= 7 multiplies to the
    # FP64 pipe, because there an FP32 warp-instruction occupies its pipe for 2 cycles.  On the
    # H100 (and in the model) an FP32 warp-instruction takes one issue slot and one pipe cycle, and
    # 8 warps per scheduler keep the issue port busy, so the loop is issue-bound: the mixed form
    # issues as many instructions and the model gives it the same time (within 1%), and the
    # dependent form issues one more (cvt.f64.f32) per iteration, so it is slower.
    doc = study("ilp")
    cycles = study_cycles("ilp")
    by_name = {v["name"]: v for v in doc["variants"]}
    for n in (8, 16, 32):
        mixed = speedup(cycles, doc, by_name[f"fp64+fp32 n={n}"])
        dependent = speedup(cycles, doc, by_name[f"dependent n={n}"])
        assert 0.99 <= mixed <= 1.01, (n, mixed)
        assert dependent < 0.995 and dependent < mixed, (n, dependent, mixed)
    # more multiplies per iteration, proportionally more time (issue-bound)
    assert cycles["fp32 n=8"] < cycles["fp32 n=16"] < cycles["fp32 n=32"]
    # The paper's own kernel (one dependent FP32 chain, factors from shared memory) is not
    # issue-bound (issue-slot use about 0.6): there the FP64 multiply does replace an FP32 one on
    # the chain, and the model gives the paper's direction, a gain of 1-3% (the paper: about 5%).
    for n in (8, 32):
        paper = speedup(cycles, doc, by_name[f"paper form fp64+fp32 n={n}"])
        assert 1.0 < paper < 1.1, (n, paper)


def test_warp_specialisation_study_direction():
    # The paper (A100) gains 22.7% with one FP64 warp per scheduler beside 7 FP32 ones.  In the
    # model, as on an H100, FP32 is not pipe-bound, so a few FP64 warps change little while the
    # all-FP64 block is limited by the 16-lane FP64 pipe (2 cycles per warp-instruction).
    doc = study("warp-specialisation")
    cycles = study_cycles("warp-specialisation")
    by_name = {v["name"]: v for v in doc["variants"]}
    s4, s8, s32 = (speedup(cycles, doc, by_name[f"{w} FP64 warps"]) for w in (4, 8, 32))
    assert s32 < 0.8, s32
    assert s32 < s8 and s32 < s4


def test_warp_specialisation_few_fp64_warps_cost_little():
    # PTX mode, h100.yaml's grr: 4 and 8 FP64 warps cost 13% and 16% (0.873, 0.839; the H100 8% and
    # 11%; SASS mode 0.933 and 0.899); they cost 18% until grr let a warp passed over for its pipe go
    # first once it frees, and 8 warps cost 13% before a DRAM load waited for the loads in flight
    # (memory.dram.inflight_cycles; the study's cycles are Nsight Compute's, caches flushed)
    doc = study("warp-specialisation")
    cycles = study_cycles("warp-specialisation")
    by_name = {v["name"]: v for v in doc["variants"]}
    s4, s8 = (speedup(cycles, doc, by_name[f"{w} FP64 warps"]) for w in (4, 8))
    assert s4 >= 0.83 and s8 >= 0.83, (s4, s8)


def test_matmul_study_direction():
    # Paper (A100): the 24:8 ILP form gains 6.76%, the warp-specialised forms lose (4.82 -> 5.07 ms),
    # and the cp.async pipeline loses (12.25 -> 14.19 ms, bank conflicts).  The model: the ILP and
    # warp-specialised forms add instructions (the FP64 products are a float multiply, a conversion
    # and a double add) and come out slower, like the paper's warp-specialised result; the pipeline
    # copies at issue (cp.async completes immediately in this model: docs/ptx-subset.md), so it
    # hides the tile loads completely and comes out faster, the opposite sign of the paper's A100
    # measurement (the H100 reference decides; docs/workloads.md reports the gap).
    doc = study("matmul")
    cycles = study_cycles("matmul")
    by_name = {v["name"]: v for v in doc["variants"]}
    assert speedup(cycles, doc, by_name["fp32/fp64 ILP 24:8"]) < 1.0
    s4, s8 = (speedup(cycles, doc, by_name[f"warp-specialised {w} FP64 warps"]) for w in (4, 8))
    assert s4 < 1.0 and s8 < 1.0
    assert abs(s8 - s4) < 0.05, (s4, s8)     # about the same, as on the H100 (0.894, 0.900)
    assert speedup(cycles, doc, by_name["cp.async double buffering"]) > 1.05
    for v in doc["variants"]:
        assert block_span(timed(v["program"])) < cycles[v["name"]]
