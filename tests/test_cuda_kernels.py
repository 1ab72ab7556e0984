"""CUDA kernels compiled by nvcc right now (-ptx -arch=sm_90) load unchanged and compute what
numpy computes.  Skipped where nvcc is absent."""
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import simt_sim

CUDA = Path(__file__).parent / "cuda"
nvcc = shutil.which("nvcc")
pytestmark = pytest.mark.skipif(nvcc is None, reason="nvcc not installed")


@pytest.fixture(scope="module")
def ptx_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("ptx")
    return out


def compile_kernel(name, out_dir):
    dst = out_dir / f"{name}.ptx"
    subprocess.run([nvcc, "-ptx", "-arch=sm_90", "-O3", "-o", str(dst), str(CUDA / f"{name}.cu")],
                   check=True, capture_output=True)
    return simt_sim.load_program(dst)


def test_vec_add_float(ptx_dir):
    p = compile_kernel("vec_add_float", ptx_dir)
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(200).astype(np.float32), rng.standard_normal(200).astype(np.float32)
    res = simt_sim.run_functional(p, 4, 64, ["a", "b", "c", 200], {"a": a, "b": b, "c": np.zeros(200, np.float32)})
    assert np.array_equal(res.outputs["c"].view(np.uint32), (a + b).view(np.uint32))


def test_saxpy_fma(ptx_dir):
    p = compile_kernel("saxpy", ptx_dir)
    src = (CUDA / "saxpy.cu").read_text()
    assert "fmaf" in src
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal(96).astype(np.float32), rng.standard_normal(96).astype(np.float32)
    res = simt_sim.run_functional(p, 1, 96, [2.5, "x", "y", 96], {"x": x, "y": y})
    from fractions import Fraction
    want = np.array([np.float32(float(Fraction(2.5) * Fraction(float(xi)) + Fraction(float(yi))))
                     for xi, yi in zip(x, y)], np.float32)
    assert np.array_equal(res.outputs["y"], want)


def test_while_loop(ptx_dir):
    p = compile_kernel("while_loop", ptx_dir)
    trips = np.random.default_rng(2).integers(0, 20, 100).astype(np.int32)
    res = simt_sim.run_functional(p, 2, 64, ["t", "o", 100], {"t": trips, "o": np.zeros(100, np.int32)})
    want = [sum(k * k + i for k in range(t)) for i, t in enumerate(trips)]
    assert res.outputs["o"].tolist() == want


def test_reduce_shared(ptx_dir):
    p = compile_kernel("reduce_shared", ptx_dir)
    data = np.random.default_rng(3).integers(-1000, 1000, 1000).astype(np.int32)
    res = simt_sim.run_functional(p, 4, 256, ["i", "o", 1000], {"i": data, "o": np.zeros(4, np.int32)})
    want = [int(data[b * 256:(b + 1) * 256].sum()) for b in range(4)]
    assert res.outputs["o"].tolist() == want


def test_warp_vote_and_shuffle_compile_and_run(ptx_dir):
    p = compile_kernel("warp_shuffle", ptx_dir)
    data = np.arange(64, dtype=np.int32) * 3
    res = simt_sim.run_functional(p, 1, 64, ["i", "o", 64], {"i": data, "o": np.zeros(64 * 5, np.int32)})
    out = res.outputs["o"].reshape(64, 5)
    lane = np.arange(64) % 32
    warp_base = (np.arange(64) // 32) * 32
    assert out[:, 0].tolist() == data[warp_base + 3].tolist()                    # shfl idx 3
    assert out[:, 1].tolist() == np.where(lane >= 1, data[np.arange(64) - 1], data).tolist()  # up 1
    assert out[:, 3].tolist() == data[warp_base + (lane ^ 5)].tolist()          # bfly 5


def test_nested_if_and_switch(ptx_dir):
    v = np.random.default_rng(4).integers(-200, 200, 64).astype(np.int32)
    p = compile_kernel("switch4", ptx_dir)
    res = simt_sim.run_functional(p, 1, 64, ["i", "o", 64], {"i": v, "o": np.zeros(64, np.int32)})
    want = [[x + 10, x * 7, x ^ 0x5a5a, -x][x & 3] for x in v.tolist()]
    assert res.outputs["o"].tolist() == want


HALF_KERNELS = {   # kernel -> half-precision instructions its nvcc PTX must contain
    "half_arith": ["add.f16", "sub.f16", "mul.f16", "fma.rn.f16", "neg.f16"],
    "half2_math": ["fma.rn.f16x2", "mul.f16x2", "max.f16x2", "min.f16x2", "abs.f16x2"],
    "bf16_math": ["add.bf16", "mul.bf16", "fma.rn.bf16", "fma.rn.relu.bf16", "max.NaN.bf16"],
    "half_convert": ["cvt.rn.f16.f32", "cvt.rz.f16.f32", "cvt.f32.f16", "cvt.rn.f16x2.f32",
                     "cvt.rn.bf16.f32", "cvt.rz.bf16.f32", "cvt.f32.bf16", "cvt.rn.bf16x2.f32",
                     "cvt.rn.f16.s32", "cvt.rzi.s32.f16"],
}


@pytest.mark.parametrize("name", sorted(HALF_KERNELS))
def test_half_kernels_compile_to_the_checked_in_ptx(name, ptx_dir):
    """cuda_fp16.h / cuda_bf16.h kernels: today's nvcc output loads, uses the half instructions
    tests/test_half.py runs (there from the checked-in .ptx), and computes the same bits."""
    fresh = compile_kernel(name, ptx_dir)
    texts = "\n".join(fresh.texts)
    missing = [m for m in HALF_KERNELS[name] if m + " " not in texts]
    assert not missing, f"{name}: nvcc no longer emits {missing}"
    kept = simt_sim.load_program(CUDA / f"{name}.ptx", isa="ptx")   # the PTX both ways
    rng = np.random.default_rng(5)
    n = 96
    words = rng.integers(0, 1 << 32, 8 * n, dtype=np.uint64).astype(np.uint32)
    if name == "half_convert":
        a = (rng.standard_normal(n) * 300).astype(np.float32)
        bufs = {"a": a, "b": a[::-1].copy(), "k": words[:n].view(np.int32), "h": np.zeros(6 * n, np.uint16),
                "p": np.zeros(2 * n, np.uint32), "f": np.zeros(2 * n, np.float32), "i": np.zeros(n, np.int32)}
        args = ["a", "b", "k", "h", "p", "f", "i", n]
    else:
        wide = name == "half2_math"
        ins = [words[k * 2 * n:(k + 1) * 2 * n].view(np.uint16)[:2 * n if wide else n] for k in range(3)]
        bufs = {"a": ins[0].copy(), "b": ins[1].copy(), "c": ins[2].copy(), "o": np.zeros(10 * n, np.uint16)}
        args = ["a", "b", "c", "o", n]
    res = [simt_sim.run_functional(p, 2, 64, args, {k: v.copy() for k, v in bufs.items()}) for p in (fresh, kept)]
    for key in bufs:
        assert np.array_equal(res[0].outputs[key].view(np.uint8), res[1].outputs[key].view(np.uint8)), key
