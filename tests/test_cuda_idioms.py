"""Everyday CUDA idioms compiled by nvcc (tests/cuda/*.cu with their committed
`nvcc -O3 -arch=sm_90 -ptx` output): float, double and 64-bit atomics with a CAS loop, warp
reductions and matching, integer intrinsics, vector loads of structs, a shared-memory transpose on
a 2-D grid, a 64-bit grid-stride loop, a block scan with shuffles, a double-buffered cp.async
pipeline and fast-math intrinsics.  The engine and the oracle agree bit for bit, and both agree
with numpy (exactly where the arithmetic is exact, within rounding where nvcc may fuse)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import simt_sim
from simt_sim.errors import RuntimeFault
from simt_sim.frontend.assembler import assemble_text, load_program
from simt_sim.oracle import run_oracle
from simt_sim.run.functional import LaunchConfig, launch
from test_oracle import assert_bits_equal

CUDA = Path(__file__).parent / "cuda"
IDIOMS = ("atomic_float", "warp_reduce", "bit_ops", "vec4_copy", "transpose_smem", "grid_stride", "block_scan",
          "cp_async_pipe", "fast_math", "int64_atomics", "named_barriers")
M32 = 0xFFFFFFFF


def run_both(name, grid, block, args, buffers, order_dependent=()):
    """Engine and oracle on copies of the buffers; all buffers but the order-dependent ones must agree
    bit for bit.  Returns (engine buffers, oracle buffers)."""
    program = load_program(str(CUDA / f"{name}.ptx"))
    eng = launch(program, grid, block, args, {k: v.copy() for k, v in buffers.items()}, config=LaunchConfig())
    orc = run_oracle(program, grid, block, args, {k: v.copy() for k, v in buffers.items()})
    for buf in buffers:
        if buf not in order_dependent:
            assert_bits_equal(eng.buffers[buf], orc.buffers[buf], f"{name}: buffer {buf}")
    return eng.buffers, orc.buffers


def test_float_double_atomics_and_cas_loop():
    r = np.random.default_rng(1)
    n = 300
    b = r.integers(0, 8, n).astype(np.int32)
    w = (r.integers(-64, 64, n) / 4).astype(np.float32)        # quarter steps: every sum is exact
    wd = (r.integers(-2**20, 2**20, n) / 8).astype(np.float64)
    bufs = {"b": b, "w": w, "wd": wd, "h": np.zeros(8, np.float32), "hd": np.zeros(8, np.float64),
            "last": np.zeros(2, np.float32), "mx": np.full(8, -np.inf)}
    got, _ = run_both("atomic_float", 3, 128, ["b", "w", "wd", "h", "hd", "last", "mx", n], bufs)
    np.testing.assert_array_equal(got["h"], np.bincount(b, w, 8).astype(np.float32))
    np.testing.assert_array_equal(got["hd"], np.bincount(b, wd, 8))
    np.testing.assert_array_equal(got["last"], [1.0 if (b % 2 == 0).any() else 0.0, 1.0 if (b % 2).any() else 0.0])
    np.testing.assert_array_equal(got["mx"], [wd[b == k].max() if (b == k).any() else -np.inf for k in range(8)])


def test_warp_reductions_and_match():
    r = np.random.default_rng(2)
    n = 200                                  # the last warp is partly outside: a partial membermask
    x = r.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    x[::5] = r.integers(0, 16, len(x[::5]))
    got, _ = run_both("warp_reduce", 2, 128, ["x", "o", n], {"x": x, "o": np.zeros(5 * n, np.uint32)})
    o = got["o"].reshape(n, 5)
    for w0 in range(0, n, 32):
        lanes = np.arange(w0, min(w0 + 32, n))
        v = x[lanes]
        np.testing.assert_array_equal(o[lanes, 0], np.uint32(int(v.astype(np.uint64).sum()) & M32))
        np.testing.assert_array_equal(o[lanes, 1], v.min())
        np.testing.assert_array_equal(o[lanes, 2], v.view(np.int32).max().astype(np.uint32))
        np.testing.assert_array_equal(o[lanes, 3], np.bitwise_or.reduce(v))
        for k, lane in enumerate(lanes):
            same = sum(1 << (j - w0) for j in lanes if (x[j] & 7) == (x[lane] & 7))
            assert o[lane, 4] == same


def byte_perm(x, y, s):
    data = x | (y << 32)
    return sum(((data >> (8 * ((s >> (4 * k)) & 7))) & 0xFF) << (8 * k) for k in range(4))


def test_integer_intrinsics():
    r = np.random.default_rng(3)
    n = 150
    a = r.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    b = r.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    c = r.integers(0, 2**63, n, dtype=np.uint64) * 2 + 1
    a[:4] = [0, 1, 0x80000000, M32]
    got, _ = run_both("bit_ops", 2, 96, ["a", "b", "c", "o", n], {"a": a, "b": b, "c": c, "o": np.zeros(10 * n, np.uint32)})
    o = got["o"].reshape(n, 10)
    for i in range(n):
        x, y, z = int(a[i]), int(b[i]), int(c[i])
        sh = z & 63
        want = [int(f"{x:032b}"[::-1], 2), 32 - x.bit_length(), (x & -x).bit_length(), bin(z).count("1"),
                byte_perm(x, y, y & 0x7777), (((y << 32 | x) << (sh & 31)) >> 32) & M32,
                ((y << 32 | x) >> min(sh, 32)) & M32, ((x & 0xFFFFFF) * (y & 0xFFFFFF)) & M32, (x * y) >> 32,
                (((z * ((x * y) & (2**64 - 1))) >> 64) ^ (abs(x - y) + 7)) & M32]
        assert o[i].tolist() == want, i


def test_vector_loads_of_structs():
    r = np.random.default_rng(4)
    n = 100
    particle = np.dtype({"names": ["pos", "id"], "formats": [("<f4", 4), ("<i4", 2)], "offsets": [0, 16],
                         "itemsize": 32})
    p = np.zeros(n, particle)
    p["pos"] = r.uniform(-10, 10, (n, 4)).astype(np.float32)
    p["id"] = r.integers(-2**31, 2**31, (n, 2))
    raw = p.view(np.uint8)
    got, _ = run_both("vec4_copy", 1, 128, ["p", "pos", "ids", 0.125, n],
                      {"p": raw, "pos": np.zeros(4 * n, np.float32), "ids": np.zeros(2 * n, np.int32)})
    pos, ids = got["pos"].reshape(n, 4), got["ids"].reshape(n, 2)
    x, y, z, w = (p["pos"][:, k] for k in range(4))
    np.testing.assert_allclose(pos[:, 0], x + np.float32(0.125) * w, rtol=1e-6)
    np.testing.assert_array_equal(pos[:, 1:], np.stack([y * 2, z - x, w], 1))
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(ids[:, 0], p["id"][:, 0] + p["id"][:, 1])
    np.testing.assert_array_equal(ids[:, 1], p["id"][:, 0] ^ p["id"][:, 1])


def test_shared_memory_transpose_on_a_2d_grid():
    rows, cols = 40, 70
    m = np.arange(rows * cols, dtype=np.float32).reshape(rows, cols)
    got, _ = run_both("transpose_smem", (3, 2), (32, 8), ["m", "t", rows, cols],
                      {"m": m.reshape(-1), "t": np.zeros(rows * cols, np.float32)})
    np.testing.assert_array_equal(got["t"].reshape(cols, rows), m.T)


def test_grid_stride_loop_with_64_bit_indices():
    r = np.random.default_rng(5)
    n = 1000                                  # 2 blocks of 128: each thread does four iterations
    x, y = r.uniform(-1, 1, n), r.uniform(-1, 1, n)
    got, _ = run_both("grid_stride", 2, 128, ["x", "y", 1.5, n], {"x": x, "y": y.copy()})
    np.testing.assert_allclose(got["y"], 1.5 * x + y * 0.5, rtol=1e-15)


def test_block_scan_with_shuffles():
    r = np.random.default_rng(6)
    n = 700
    x = r.integers(-1000, 1000, n).astype(np.int32)
    got, _ = run_both("block_scan", 3, 256, ["x", "o", n], {"x": x, "o": np.zeros(n, np.int32)})
    want = np.concatenate([np.cumsum(x[k:k + 256]) for k in range(0, n, 256)]).astype(np.int32)
    np.testing.assert_array_equal(got["o"], want)


def test_double_buffered_cp_async_pipeline():
    r = np.random.default_rng(7)
    blocks, tiles = 2, 5
    x = r.integers(-8, 8, blocks * tiles * 128).astype(np.float32)     # small integers: exact sums
    got, _ = run_both("cp_async_pipe", blocks, 128, ["x", "o", tiles], {"x": x, "o": np.zeros(blocks * 128, np.float32)})
    xs = x.reshape(blocks, tiles, 128)
    src = (np.arange(128) * 7) % 128
    want = sum(xs[:, t, src] * (t + 1) for t in range(tiles))
    np.testing.assert_array_equal(got["o"].reshape(blocks, 128), want)


def test_fast_math_intrinsics():
    r = np.random.default_rng(8)
    n = 128
    x = r.uniform(-4, 4, n).astype(np.float32)
    got, _ = run_both("fast_math", 1, 128, ["x", "o", n], {"x": x, "o": np.zeros(7 * n, np.float32)})
    o = got["o"].reshape(n, 7).astype(np.float64)
    xd = x.astype(np.float64)
    want = np.stack([np.sin(xd), np.cos(xd), np.exp(xd * 0.25), np.log(np.abs(xd) + 1), 1 / np.sqrt(np.abs(xd) + 0.5),
                     xd / 3, np.sqrt(xd * xd + 1)], 1)
    np.testing.assert_allclose(o, want, rtol=2e-6, atol=2e-6)      # the hardware's approximations are as close


def test_64_bit_integer_atomics():
    r = np.random.default_rng(9)
    n = 260
    v = r.integers(-2**62, 2**62, n, dtype=np.int64)
    bufs = {"v": v, "acc": np.array([0, 2**63 - 1, -2**63], np.int64), "bits": np.array([2**64 - 1, 0, 0], np.uint64),
            "owner": np.zeros(8, np.uint64)}
    got, orc = run_both("int64_atomics", 3, 96, ["v", "acc", "bits", "owner", n], bufs, order_dependent=("owner",))
    with np.errstate(over="ignore"):
        assert got["acc"].tolist() == [int(v.sum()), int(v.min()), int(v.max())]
    u = v.view(np.uint64)
    assert got["bits"].tolist() == [int(np.bitwise_and.reduce(u | np.uint64(0xff00ff00ff00ff00))),
                                    int(np.bitwise_or.reduce(np.uint64(1) << (np.arange(n) % 64).astype(np.uint64))),
                                    int(np.bitwise_xor.reduce(u))]
    for buffers in (got, orc):                 # first writer wins: which thread depends on the order run
        for k, who in enumerate(buffers["owner"].tolist()):
            assert who >= 1 and (who - 1) % 8 == k


def named_barrier_case():
    r = np.random.default_rng(10)
    x = r.integers(-1000, 1000, 3 * 128).astype(np.int32)
    v = x.reshape(3, 128) * 3
    stage = v + v[:, np.arange(128) ^ 64]
    return x, (stage[:, ::-1] - 1).reshape(-1)


def test_named_barriers_producers_and_consumers():
    x, want = named_barrier_case()
    got, _ = run_both("named_barriers", 3, 256, ["x", "o"], {"x": x, "o": np.zeros(3 * 128, np.int32)})
    np.testing.assert_array_equal(got["o"], want)


def test_named_barriers_in_the_timing_model():
    """Consumers wait at barrier 1 until the producers' bar.arrive; the producers never wait."""
    x, want = named_barrier_case()
    program = simt_sim.load_program(CUDA / "named_barriers.ptx")
    res = simt_sim.simulate(simt_sim.Launch(program, 3, 256, ["x", "o"]), {"x": x, "o": np.zeros(3 * 128, np.int32)},
                            trace=True)
    np.testing.assert_array_equal(res.outputs["o"], want)
    stalls = res.metrics[0]["stall_cycles"]
    assert stalls["barrier"] > 0


def test_named_barrier_that_never_completes_is_a_deadlock():
    text = (CUDA / "named_barriers.ptx").read_text().replace("bar.arrive", "// bar.arrive")
    program = assemble_text(text)
    x, _ = named_barrier_case()
    bufs = {"x": x, "o": np.zeros(3 * 128, np.int32)}
    with pytest.raises(RuntimeFault, match="deadlock"):
        launch(program, 3, 256, ["x", "o"], bufs, config=LaunchConfig())
    with pytest.raises(RuntimeFault, match="deadlock"):
        run_oracle(program, 3, 256, ["x", "o"], bufs)


def test_shuffles_in_engine_and_oracle():
    """shfl.sync idx / up / down / bfly (tests/cuda/warp_shuffle.cu) run by the oracle's warp
    collectives too: the lanes of the membermask meet and exchange values."""
    data = np.random.default_rng(11).integers(-2**31, 2**31, 96).astype(np.int32)
    got, _ = run_both("warp_shuffle", 1, 96, ["i", "o", 96], {"i": data, "o": np.zeros(96 * 5, np.int32)})
    out = got["o"].reshape(96, 5)
    lane, base = np.arange(96) % 32, (np.arange(96) // 32) * 32
    np.testing.assert_array_equal(out[:, 0], data[base + 3])
    np.testing.assert_array_equal(out[:, 3], data[base + (lane ^ 5)])
