"""Float atomic add with NaN operands (generated corpus class `gp64`, docs/corpus.md): a global
`atomicAdd(double*)` (PTX `atom.global.add.f64`, ptxas `ATOMG.E.ADD.F64.RN` / `RED.E.ADD.F64.RN`)
is done by the memory system's atomic unit, not by a DADD.  On the H100 a NaN operand comes
through with its bits unchanged, a signalling NaN too (no quieting, sign and payload kept), the
added value's NaN before the memory word's.  The simulator had the CPU's x86 add (the first NaN,
quieted), so the private word `gp64` of ~100 corpus kernels was wrong in both modes
(k00105: memory 0x7ff45326e1bcd975 + 0.0 stays 0x7ff45326e1bcd975, not 0x7ffc5326e1bcd975).
A shared-memory one is ptxas's ATOMS.CAST.SPIN.64 loop around `DADD new, b, old`: the DADD's NaN
rule (quieted, the old value's NaN first: DADD takes its second source first), which PTX mode now
follows too.

Two kinds of test: corpus kernels replayed in SASS and PTX mode against their H100 recordings
(needs nvcc to rebuild the modules), and tests/cuda/atomic_f64_nan.cu (every pair of a list of
special values) in PTX mode (engine and oracle) and SASS mode."""
from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

from simt_sim.frontend import sass
from simt_sim.frontend.assembler import load_program
from simt_sim.oracle import run_oracle
from simt_sim.run.functional import launch

from corpus_replay import exact_class_test

CUDA = Path(__file__).resolve().parent / "cuda"
needs_ptxas = pytest.mark.skipif(not sass.tools_available(), reason="needs ptxas and nvdisasm")

# corpus kernel -> what its gp64 word shows (wrong in both modes at 3eeb60c)
CLASSES = {
    "k00105": "memory holds the signalling NaN 0x7ff45326e1bcd975; + 0.0 leaves it as it is",
    "k00208": "memory signalling NaN + 1.0: the memory word's NaN, unquieted",
    "k00227": "a number + the signalling NaN 0x7ff00000fffffffb: the added NaN, unquieted",
    "k01108": "a negative number + a signalling NaN: the added NaN, unquieted",
    "k08101": "memory signalling NaN + infinity: the NaN, unquieted",
    "k09124": "memory negative signalling NaN 0xfff7ff9cffffffef + a number: unchanged",
}

test_gp64_class_kernel_is_exact_against_the_h100 = exact_class_test(sass=CLASSES, ptx=CLASSES)


# ---- tests/cuda/atomic_f64_nan.cu: every pair of special values -----------------------------------

VALS64 = [0x0, 0x8000000000000000, 0x3FF0000000000000, 0xBFF0000000000000, 0x7FF0000000000000,
          0xFFF0000000000000, 0x7FF8000000000000, 0xFFF8000000000000, 0x7FFC5326E1BCD975,
          0xFFFFFFF503FF8000, 0x7FF45326E1BCD975, 0xFFF7FF9CFFFFFFEF, 0x7FF00000FFFFFFFB,
          0x00000000FFFFFFFF, 0x800000007FF00000, 0x0010000000000000, 0x7FEFFFFFFFFFFFFF,
          0x3FF8000000000000]
VALS32 = [0x0, 0x80000000, 0x3F800000, 0xBF800000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000,
          0x7FD12345, 0xFF912345, 0x7F812345, 0xFF800001, 0x7F800001, 0x00000001, 0x807FFFFF,
          0x00800000, 0x7F7FFFFF, 0x3FC00000]
OUT64 = ("red_mem", "atom_mem", "atom_ret", "sh_mem", "sh_ret")
OUT32 = ("red32", "atom32", "ret32", "sh32", "shret32")
ARGS = ["vals", "vals32", len(VALS64), *OUT64[:5], *OUT32]
N = len(VALS64)
BLOCK = 128


def buffers():
    b = {"vals": np.array(VALS64, np.uint64), "vals32": np.array(VALS32, np.uint32)}
    b.update({k: np.zeros(N * N, np.uint64) for k in OUT64})
    b.update({k: np.zeros(N * N, np.uint32) for k in OUT32})
    return b


def grid():
    return (N * N + BLOCK - 1) // BLOCK


def f64(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def bits64(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def is_nan(bits: int) -> bool:
    return (bits >> 52) & 0x7FF == 0x7FF and bits & ((1 << 52) - 1) != 0


def global_add_f64(old: int, b: int) -> int:
    """The H100's global atomicAdd(double*): a NaN operand unchanged, the added one's first."""
    if is_nan(b):
        return b
    if is_nan(old):
        return old
    s = f64(old) + f64(b)
    return 0xFFF8000000000000 if s != s else bits64(s)


@pytest.fixture(scope="module")
def ptx_run():
    program = load_program(str(CUDA / "atomic_f64_nan.ptx"), "atomic_f64_nan")
    eng = launch(program, grid(), BLOCK, ARGS, buffers()).buffers
    orc = run_oracle(program, grid(), BLOCK, ARGS, buffers()).buffers
    return eng, orc


def test_engine_and_oracle_agree(ptx_run):
    eng, orc = ptx_run
    for k in OUT64 + OUT32:
        assert np.array_equal(eng[k], orc[k]), f"engine and oracle differ in {k}"


def test_global_f64_atomic_add_passes_nans_through_unchanged(ptx_run):
    eng, _ = ptx_run
    for p in range(N * N):
        old, b = VALS64[p // N], VALS64[p % N]
        want = global_add_f64(old, b)
        assert int(eng["atom_ret"][p]) == old
        for k in ("red_mem", "atom_mem"):
            assert int(eng[k][p]) == want, f"{k} {old:#018x} + {b:#018x}: {int(eng[k][p]):#018x}, want {want:#018x}"
    # the cases the generated corpus recorded on the H100 (k00105, k00227, k00029, k09124)
    at = {(VALS64[p // N], VALS64[p % N]): int(eng["atom_mem"][p]) for p in range(N * N)}
    assert at[(0x7FF45326E1BCD975, 0x0)] == 0x7FF45326E1BCD975          # not quieted to 0x7ffc...
    assert at[(0x3FF8000000000000, 0x7FF00000FFFFFFFB)] == 0x7FF00000FFFFFFFB
    assert at[(0x7FF45326E1BCD975, 0xFFFFFFF503FF8000)] == 0xFFFFFFF503FF8000   # the added NaN first
    assert at[(0xFFF7FF9CFFFFFFEF, 0x3FF0000000000000)] == 0xFFF7FF9CFFFFFFEF
    assert at[(0x0, 0x800000007FF00000)] == 0x800000007FF00000           # subnormals kept


@needs_ptxas
def test_sass_mode_matches_ptx_mode():
    """SASS mode runs ATOMG.E.ADD.F64.RN (lowered to the same atomic) and, for shared memory,
    ptxas's real ATOMS.CAST.SPIN.64 loop around DADD: PTX mode's shared rule must give its bits."""
    from simt_sim.frontend.sass_lower import load_kernel
    program = load_kernel(str(CUDA / "atomic_f64_nan.ptx"), "atomic_f64_nan", "sass")
    s = launch(program, grid(), BLOCK, ARGS, buffers()).buffers
    p = launch(load_program(str(CUDA / "atomic_f64_nan.ptx"), "atomic_f64_nan"), grid(), BLOCK, ARGS,
               buffers()).buffers
    for k in OUT64 + OUT32:
        assert np.array_equal(s[k], p[k]), f"SASS and PTX mode differ in {k}: pairs " + str(
            [(hex(VALS64[i // N]), hex(VALS64[i % N]), hex(int(s[k][i])), hex(int(p[k][i])))
             for i in np.nonzero(s[k] != p[k])[0][:4]])


def test_shared_f64_atomic_add_is_a_dadd(ptx_run):
    """ptxas's loop computes `DADD new, b, old`: a NaN result is quieted, old's NaN first (SASS mode's
    DADD rule, docs/corpus.md), unlike the global form."""
    eng, _ = ptx_run
    quiet = 1 << 51
    for p in range(N * N):
        old, b = VALS64[p // N], VALS64[p % N]
        sh = int(eng["sh_mem"][p])
        assert int(eng["sh_ret"][p]) == old
        if is_nan(old):
            assert sh == old | quiet
        elif is_nan(b):
            assert sh == b | quiet
        else:
            assert sh == global_add_f64(old, b)
