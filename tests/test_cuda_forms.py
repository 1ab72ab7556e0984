"""nvcc-compiled kernels (tests/cuda/*.cu, committed with their `nvcc -O3 -arch=sm_90 -ptx` output)
that use the operand forms of issue 10: 64-bit values narrowed on store, clock64 spans stored as
int, __ldg of narrow types, __syncwarp, dynamic shared memory, a module whose other kernel calls
a __noinline__ device function (both run), __half2 helpers' scoped inline asm and a 1024-thread block.
Engine and oracle agree bit for bit and with numpy; registers come from ptxas (cached)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import simt_sim
from simt_sim.cli.main import main
from simt_sim.frontend import ptxas
from simt_sim.frontend.assembler import load_program
from simt_sim.oracle import run_oracle
from simt_sim.run.functional import LaunchConfig, launch
from test_oracle import assert_bits_equal

CUDA = Path(__file__).parent / "cuda"


def prog(name: str, kernel: str | None = None):
    return load_program(str(CUDA / f"{name}.ptx"), kernel)


def both(program, grid, block, args, buffers, dynamic_shared=0):
    """Engine and oracle on copies of the buffers; every buffer must agree bit for bit."""
    eng = launch(program, grid, block, args, {k: v.copy() for k, v in buffers.items()},
                 config=LaunchConfig(), dynamic_shared=dynamic_shared)
    orc = run_oracle(program, grid, block, args, {k: v.copy() for k, v in buffers.items()},
                     dynamic_shared=dynamic_shared)
    for name in buffers:
        assert_bits_equal(eng.buffers[name], orc.buffers[name], f"buffer {name}")
    np.testing.assert_array_equal(eng.thread_icount, orc.thread_icount)
    return orc.buffers


def test_narrow_store_of_64_bit_values():
    p = prog("narrow_store")
    texts = "\n".join(p.texts)
    assert "st.global.u32 [%rd17], %rd14;" in texts and "ld.global.s16 %rd31" in texts
    r = np.random.default_rng(10)
    n = 300
    x = r.integers(-2**63, 2**63, n, dtype=np.int64)
    b = r.integers(0, 256, n).astype(np.uint8)
    h = r.integers(-2**15, 2**15, n).astype(np.int16)
    bufs = {"x": x, "b": b, "h": h, "out": np.zeros(3 * n, np.int32), "wide": np.zeros(2 * n, np.int64)}
    got = both(p, 3, 128, ["x", "b", "h", "out", "wide", n], bufs)
    with np.errstate(over="ignore"):
        v = x * 3 + 0x123456789
        want_out = np.stack([(v >> 11).astype(np.int32), (x ^ (x >> 29)).astype(np.int32), v.astype(np.int32)], 1)
        want_wide = np.stack([(b.astype(np.int64) << 40) | h.view(np.uint16).astype(np.int64),
                              h.astype(np.int64) * b.astype(np.int64) - x], 1)
    assert_bits_equal(got["out"], want_out.reshape(-1), "numpy out")
    assert_bits_equal(got["wide"], want_wide.reshape(-1), "numpy wide")


@pytest.mark.parametrize("timed", [False, True])
def test_clock64_span_stored_as_int(timed):
    # %clock64 depends on timing, which the oracle does not model: the engine alone, against numpy
    p = prog("clock_span")
    assert any(t.startswith("st.global.u32") and t.endswith("%rd11;") for t in p.texts)
    n = 100
    data = np.arange(n, dtype=np.int32) * 17 - 500
    bufs = {"in": data, "span": np.full(n, -1, np.int32), "out": np.zeros(n, np.int32)}
    if timed:
        res = simt_sim.simulate(simt_sim.Launch(p, 2, 64, ["in", "span", "out", n]), bufs, "h100")
    else:
        res = simt_sim.run_functional(p, 2, 64, ["in", "span", "out", n], bufs)
    want = data.astype(np.int64)
    for _ in range(8):
        want = (want * 1664525 + 1013904223) & 0xFFFFFFFF
    assert res.outputs["out"].tolist() == want.astype(np.uint32).view(np.int32).tolist()
    span = res.outputs["span"]
    assert (span > 0).all() and (span < 100_000).all()


def test_ldg_of_narrow_types():
    p = prog("ldg_bytes")
    assert any(t.startswith("ld.global.nc.s8") for t in p.texts)
    r = np.random.default_rng(11)
    n = 200
    a = r.integers(-128, 128, n).astype(np.int8)
    bb = r.integers(0, 2**16, n).astype(np.uint16)
    c = r.integers(-2**31, 2**31, 2 * n, dtype=np.int64).astype(np.int32)
    got = both(p, 2, 128, ["a", "b", "c", "out", n], {"a": a, "b": bb, "c": c, "out": np.zeros(n, np.int64)})
    with np.errstate(over="ignore"):
        want = (a.astype(np.int64) * 1000003 + (bb.astype(np.int64) << 20)
                - c[0::2].astype(np.int64) * c[1::2].astype(np.int64))
    assert_bits_equal(got["out"], want, "numpy")


def test_syncwarp_exchange():
    p = prog("syncwarp")
    assert "bar.warp.sync -1;" in p.texts
    n = 250
    data = np.random.default_rng(12).integers(-1000, 1000, n).astype(np.int32)
    got = both(p, 2, 128, ["in", "out", n], {"in": data, "out": np.zeros(n, np.int32)})
    want = np.zeros(n, np.int32)
    for blk in range(2):
        init = np.zeros(128, np.int64)
        idx = blk * 128 + np.arange(128)
        init[idx < n] = data[idx[idx < n]]
        t = np.arange(128)
        lane = t & 31
        buf = init[(t & ~31) | ((lane + 1) & 31)] * 2 + lane
        res = buf[(t & ~31) | (31 - lane)]
        ok = idx < n
        want[idx[ok]] = res[ok]
    assert got["out"].tolist() == want.tolist()


def test_dynamic_shared_memory():
    p = prog("dyn_shared")
    assert p.dynamic_shared and p.shared_size == 0
    n, block = 300, 128
    data = np.arange(n, dtype=np.int32) * 5 - 77
    got = both(p, 3, block, ["in", "out", n], {"in": data, "out": np.zeros(n, np.int32)},
               dynamic_shared=block * 4)
    want = np.zeros(n, np.int32)
    for j in range(n):
        blk, t_rev = divmod(j, block)
        src = blk * block + (block - 1 - t_rev)
        want[j] = 3 * (data[src] if src < n else -1)
    assert got["out"].tolist() == want.tolist()


def test_module_with_a_noinline_function_runs_both_kernels():
    plain = prog("two_kernels", "plain")
    n = 100
    data = np.arange(n, dtype=np.int32) ** 2
    got = both(plain, 1, 128, ["in", "out", n], {"in": data, "out": np.zeros(n, np.int32)})
    assert got["out"].tolist() == (data * 7 - np.arange(n)).tolist()
    mixes = prog("two_kernels", "mixes")          # calls the __noinline__ mix() from divergent code
    assert mixes.functions == {"_Z3mixii": mixes.functions["_Z3mixii"]} and mixes.call_levels == 1
    got = both(mixes, 1, 128, ["in", "out", n], {"in": data, "out": np.zeros(n, np.int32)})
    assert got["out"].tolist() == (data * 31 + (np.arange(n) ^ 0x55)).tolist()


def test_half2_inline_asm_scoped_blocks():
    p = prog("half_swap")
    n = 64
    bits = np.random.default_rng(13).integers(0, 2**32, n, dtype=np.int64).astype(np.uint32)
    got = both(p, 1, 64, ["in", "out", "lows", n],
               {"in": bits, "out": np.zeros(n, np.uint32), "lows": np.zeros(n, np.uint16)})
    assert got["out"].tolist() == ((bits >> 16) | (bits << 16)).tolist()
    assert got["lows"].tolist() == (bits & 0xFFFF).astype(np.uint16).tolist()


def tree_sum_of_squares(v: np.ndarray) -> np.float32:
    """big_block's reduction order in float32: part[t] += part[t + s] for s = 512 .. 1."""
    part = (v * v).astype(np.float32)
    s = 512
    while s:
        part[:s] = part[:s] + part[s:2 * s]
        s >>= 1
    return part[0]


def test_big_block_functional():
    p = prog("big_block")
    n = 2900
    data = np.random.default_rng(14).standard_normal(n).astype(np.float32)
    got = both(p, 3, 1024, ["in", "out", "count", n],
               {"in": data, "out": np.zeros(3, np.float32), "count": np.zeros(1, np.int32)})
    padded = np.zeros(3 * 1024, np.float32)
    padded[:n] = data
    want = np.array([tree_sum_of_squares(padded[b * 1024:(b + 1) * 1024]) for b in range(3)], np.float32)
    assert_bits_equal(got["out"], want, "numpy")
    assert got["count"].tolist() == [int((data > 0).sum())]


# ---- registers from ptxas, dynamic shared memory from the command line ----------------------------

needs_ptxas = pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not installed")


@needs_ptxas
def test_registers_come_from_ptxas_and_are_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("SIMT_SIM_CACHE", str(tmp_path))
    p = prog("big_block")
    first = ptxas.allocated_registers(p)
    assert first.source == "ptxas" and first.warning is None
    assert 1 <= first.registers <= 64 < p.declared_regs
    cached = list((tmp_path / "ptxas-registers").glob("*.json"))
    assert len(cached) == 1 and json.loads(cached[0].read_text())["registers"]["big_block"] == first.registers
    monkeypatch.setattr(shutil, "which", lambda name: None)     # the cache answers without ptxas
    assert ptxas.allocated_registers(p) == ptxas.RegisterCount(first.registers, "cache")
    plain = prog("two_kernels", "plain")
    assert ptxas.allocated_registers(plain).source == "estimate"   # another file: ptxas is needed


def test_without_ptxas_the_declarations_are_an_estimate(tmp_path, monkeypatch):
    monkeypatch.setenv("SIMT_SIM_CACHE", str(tmp_path))
    monkeypatch.setattr(shutil, "which", lambda name: None)
    p = prog("big_block")
    count = ptxas.allocated_registers(p)
    assert count == ptxas.RegisterCount(p.declared_regs, "estimate", count.warning)
    assert "ptxas not found" in count.warning and "--registers" in count.warning


@needs_ptxas
def test_quick_form_fits_a_1024_thread_block(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SIMT_SIM_CACHE", str(tmp_path))
    argv = ["run", str(CUDA / "big_block.ptx"), "--grid", "2", "--block", "1024",
            "--buffer", "in=f32[2048]:random(seed=3,low=-1,high=1)", "--buffer", "out=f32[2]",
            "--buffer", "count=i32[1]", "--args", "in,out,count,2048", "--json", str(tmp_path / "r.json")]
    assert main(argv) == 0, capsys.readouterr().err
    doc = json.loads((tmp_path / "r.json").read_text())
    occupancy = doc["metrics"]["kernels"][0]["occupancy"]
    assert occupancy["registers_per_thread"] == ptxas.allocated_registers(prog("big_block")).registers
    assert main(argv + ["--registers", str(prog("big_block").declared_regs)]) == 2   # the .reg count: too many
    assert "does not fit on an SM of h100" in capsys.readouterr().err


def test_quick_form_warns_when_registers_are_estimated(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SIMT_SIM_CACHE", str(tmp_path))
    monkeypatch.setattr(shutil, "which", lambda name: None)
    argv = ["run", str(CUDA / "vec_add_int.ptx"), "--isa", "ptx", "--grid", "1", "--block", "32", "--buffer", "a=i32[32]",
            "--buffer", "b=i32[32]", "--buffer", "c=i32[32]", "--args", "a,b,c,32"]
    assert main(argv) == 0
    assert "warning: kernel vec_add_int: ptxas not found on PATH; registers per thread estimated" in \
        capsys.readouterr().err
    assert main(argv + ["--quiet"]) == 0 and capsys.readouterr().err == ""


def test_shared_bytes_sizes_dynamic_shared_memory(tmp_path, capsys):
    argv = ["run", str(CUDA / "dyn_shared.ptx"), "--grid", "2", "--block", "128", "--functional",
            "--buffer", "in=i32[256]:range", "--buffer", "out=i32[256]", "--args", "in,out,256",
            "--json", str(tmp_path / "r.json")]
    assert main(argv + ["--shared-bytes", "512"]) == 0
    out = json.loads((tmp_path / "r.json").read_text())["outputs"]["out"]
    got = np.array(out["values"] if isinstance(out, dict) else out)
    want = [3 * (b * 128 + 127 - t) for b in range(2) for t in range(128)]
    assert got.tolist() == want
    assert main(argv) == 3                                         # no dynamic shared memory given
    assert "out-of-bounds access of 4 bytes" in capsys.readouterr().err
    assert main(argv + ["--shared-bytes", "-4"]) == 2
    assert "--shared-bytes must be between 0 and 2147483647, found -4" in capsys.readouterr().err
