"""Everyday CUDA idioms that SASS mode got wrong, refused or faulted on (issue 61, point 4), each in a
kernel of its own (tests/cuda/sass_*.cu with their committed `nvcc -O3 -ptx -arch=sm_90` output),
run as ptxas's sm_90 SASS and checked against numpy / plain Python (never against the simulator):

- the shared-memory histogram `atomicAdd(&bins[b], 1)` with the result unused (ATOMS.POPC.INC.32)
  and float / double / 64-bit atomics on shared memory (ptxas's ATOMS.CAST.SPIN loops);
- conversions of the upper half-word or a byte of a word (I2F.U16 R2, R5.H1; I2F.S8 .. R.B1);
- the uniform datapath (ULOP3, UPOPC, UPRMT, USEL, UFLO ...);
- fmin / fmax of doubles (DSETP.MIN / .MAX), half |x| operands (|R7|.H0_H0), VHMNMX;
- a kernel that spills to its stack (VIADD R1, R1, 0xfffffeb8);
- recursion with data-dependent depth and divergent loops with barriers."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simt_sim.frontend import sass
from simt_sim.frontend.sass import ControlCodes, SassInstruction, SassKernel, split_operands
from simt_sim.frontend.sass_lower import (RowBuilder, SassLoweringError, load_kernel, lower_instruction,
                                          stack_frames)
from simt_sim.errors import RuntimeFault
from simt_sim.isa import encoding as E
from simt_sim.run.functional import launch

CUDA = Path(__file__).resolve().parent / "cuda"
M32 = 0xFFFFFFFF
pytestmark = pytest.mark.skipif(not sass.tools_available(), reason="needs ptxas and nvdisasm")


def run_sass(name, kernel, grid, block, args, buffers, must_hold=()):
    """Outputs of one SASS-mode launch; `must_hold`: SASS opcodes the kernel's code must contain
    (so the test keeps testing the instruction it was written for)."""
    program = load_kernel(str(CUDA / f"{name}.ptx"), kernel, "sass")
    texts = "\n".join(program.texts)
    missing = [m for m in must_hold if m not in texts]
    assert not missing, f"{name}: ptxas no longer emits {missing}"
    return launch(program, grid, block, args, {k: v.copy() for k, v in buffers.items()}).buffers


def words(rng, n):
    return rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)


# ---- 1. shared-memory atomics ------------------------------------------------------------------

def test_shared_histogram_and_float_double_64bit_shared_atomics():
    rng = np.random.default_rng(61)
    n, blocks, block = 300, 3, 128
    x = words(rng, n)
    bufs = dict(x=x, bins=np.zeros(64 * blocks, np.uint32), ticket=np.zeros(n, np.uint32),
                fsum=np.zeros(16 * blocks, np.float32), dsum=np.zeros(16 * blocks), lsum=np.zeros(16 * blocks, np.uint64),
                lmin=np.zeros(8 * blocks, np.int64), lmax=np.zeros(8 * blocks, np.int64),
                lx=np.zeros(4 * blocks, np.uint64), fx=np.zeros(8 * blocks, np.float32))
    got = run_sass("sass_shared_atomics", None, blocks, block, list(bufs) + [n], bufs,
                   must_hold=("ATOMS.POPC.INC.32", "ATOMS.CAST.SPIN ", "ATOMS.CAST.SPIN.64"))
    assert got["ticket"].tolist() == [1] * n
    for blk in range(blocks):
        v = x[blk * block:(blk + 1) * block].astype(np.int64)
        np.testing.assert_array_equal(got["bins"][blk * 64:(blk + 1) * 64], np.bincount(v & 63, minlength=64))
        np.testing.assert_array_equal(got["fx"][blk * 8 + 4:blk * 8 + 8], np.bincount((v >> 6) & 3, minlength=4))
        # quarter and half steps of small integers: every order of the atomic adds gives these sums
        np.testing.assert_array_equal(got["fsum"][blk * 16:(blk + 1) * 16],
                                      np.bincount((v >> 8) & 15, (v >> 20) * 0.25, 16).astype(np.float32))
        np.testing.assert_array_equal(got["dsum"][blk * 16:(blk + 1) * 16], np.bincount((v >> 12) & 15, (v >> 4) * 0.5, 16))
        lsum = [sum(int(u) << 24 for u in v if (u >> 16) & 15 == k) % (1 << 64) for k in range(16)]
        assert got["lsum"][blk * 16:(blk + 1) * 16].tolist() == lsum
        s = [int(u) * (-3 if u & 1 else 5) for u in v]
        lmin = [min([q for q, u in zip(s, v) if (u >> 3) & 7 == k], default=2**63 - 1) for k in range(8)]
        lmax = [max([q for q, u in zip(s, v) if (u >> 5) & 7 == k], default=-2**63) for k in range(8)]
        assert got["lmin"][blk * 8:(blk + 1) * 8].tolist() == lmin
        assert got["lmax"][blk * 8:(blk + 1) * 8].tolist() == lmax
        lx = [0] * 4
        for u in v:
            lx[(u >> 2) & 3] |= 1 << (int(u) % 64)
        assert got["lx"][blk * 4:(blk + 1) * 4].tolist() == lx
        assert got["fx"][blk * 8:blk * 8 + 4].tolist() == [2.5 if ((v & 3) == k).any() else 0.0 for k in range(4)]


# ---- 2. half-word and byte selectors -----------------------------------------------------------

def test_upper_half_and_byte_conversions():
    rng = np.random.default_rng(62)
    n = 200
    x = words(rng, n)
    x[:8] = [0, 0xFFFFFFFF, 0x80008000, 0x7FFF7FFF, 0x00010000, 0x12345678, 0xFF7F80FF, 0x7C00FC00]
    bufs = dict(x=x, f=np.zeros(10 * n, np.float32), d=np.zeros(6 * n), h=np.zeros(4 * n, np.uint16),
                k=np.zeros(4 * n, np.int32))
    got = run_sass("sass_subword_convert", "sass_subword_convert", 2, 128, ["x", "f", "d", "h", "k", n], bufs,
                   must_hold=("I2F.U16 ", ".H1", ".B1", "I2F.S8", "I2F.F64.U16"))
    u = x.astype(np.int64)
    hi16, b1, b2, b3 = u >> 16, (u >> 8) & 0xFF, (u >> 16) & 0xFF, u >> 24
    s16 = hi16.astype(np.uint16).view(np.int16).astype(np.int64)
    sb1, sb2, sb3 = (v.astype(np.uint8).view(np.int8).astype(np.int64) for v in (b1, b2, b3))
    f = got["f"].reshape(n, 10)
    want_f = np.stack([hi16, b1, b2, b3, s16, sb1, sb2, sb3], 1).astype(np.float32)
    np.testing.assert_array_equal(f[:, :8], want_f)
    np.testing.assert_array_equal(f[:, 8], ((u & 0xFFFF).astype(np.float32) * np.float32(0.5)
                                            + hi16.astype(np.float32)).astype(np.float32))
    finite = ~np.isnan(hi16.astype(np.uint16).view(np.float16))
    np.testing.assert_array_equal(f[finite, 9], hi16.astype(np.uint16).view(np.float16)[finite].astype(np.float32))
    np.testing.assert_array_equal(got["d"].reshape(n, 6),
                                  np.stack([hi16, s16, sb1, b2, sb3, b1], 1).astype(np.float64))
    h = got["h"].reshape(n, 4).view(np.float16)
    with np.errstate(over="ignore"):                                       # inf above 65519
        np.testing.assert_array_equal(h[:, 0], hi16.astype(np.float16))
    np.testing.assert_array_equal(h[:, 1], s16.astype(np.float16))
    np.testing.assert_array_equal(h[:, 2], sb1.astype(np.float16))
    np.testing.assert_array_equal(h[:, 3], b3.astype(np.float16))
    k = got["k"].reshape(n, 4).astype(np.int64)
    assert k[:, 0].tolist() == (sb1 * 3).tolist()
    assert k[:, 1].tolist() == (s16 - 7).tolist()
    assert k[:, 2].tolist() == (sb2 ^ 0x55).tolist()
    low16 = (u & 0xFFFF).astype(np.uint16).view(np.int16).astype(np.int64)
    assert k[:, 3].tolist() == [((b * s) + 2**31) % 2**32 - 2**31 for b, s in zip(b3.tolist(), low16.tolist())]


# ---- 3. the uniform datapath -------------------------------------------------------------------

def popc(v):
    return bin(v & M32).count("1")


def byte_perm(x, y, s):
    data = (x & M32) | ((y & M32) << 32)
    return sum(((data >> (8 * ((s >> (4 * k)) & 7))) & 0xFF) << (8 * k) for k in range(4))


def s32(v):
    v &= M32
    return v - (1 << 32) if v & 0x80000000 else v


def uniform_values(a, b, c, w):
    ffs = lambda v: (v & -v).bit_length()          # noqa: E731
    clz = lambda v, bits: bits - v.bit_length()   # noqa: E731
    u = [popc(a), (a & b) ^ ((~a & M32) | (b >> 3)), byte_perm(a, b, 0x5140), a if a > b else b * 3, clz(b, 32),
         int(f"{a:032b}"[::-1], 2), max(c, -5) + min(a, b >> 2), (a << (c & 7)) | (b >> (c & 15)), ffs(a >> 3),
         11 if (c < 0 and a > 1) or a == b else 17, ((((b << 32) | a) << (c & 31)) >> 32), abs(c),
         s32(a << 8) >> (c & 31), bin(w).count("1") + (w >> 37) + clz(w, 64),
         (a != 0) + (b != 0) * 2 + (c != 0) * 4 + ((a ^ b) > (c & M32)) * 8, byte_perm(a, 0, 0x3321) ^ popc(a & b)]
    acc = 0
    for k in range((a & 7) + 2):
        acc = (acc * 31 + (k ^ b) + popc(k * a)) & M32
    return [v & M32 for v in u] + [acc]


@pytest.mark.parametrize("a, b, c, w", [(0x9ABCDEF1, 0x01234567, -77, 0x0123456789ABCDEF),
                                        (0x00000003, 0x00000003, 9, 0xFFFF000000000001)])
def test_uniform_datapath_values(a, b, c, w):
    blocks, block = 2, 64
    got = run_sass("sass_uniform_ops", "sass_uniform_ops", blocks, block, [a, b, c, w, "o"],
                   {"o": np.zeros(17 * blocks * block, np.uint32)}, must_hold=("UPOPC", "USEL", "UFLO"))
    o = got["o"].reshape(-1, 17).astype(np.int64)
    u = uniform_values(a, b, c, w)
    for t in range(blocks * block):
        want = [u[0] + t, u[1] ^ t, u[2] + t, u[3] * (t + 1), u[4] + t, u[5] ^ t, u[6] + t, u[7] ^ t, u[8] + t,
                u[9] * t, u[10] ^ t, u[11] + t, u[12] ^ t, u[13] + t, u[14] * t, u[15] ^ t, u[16] + t]
        assert o[t].tolist() == [v & M32 for v in want], f"thread {t}"


def test_uniform_loop_logic_permute_popcount():
    a, n, blocks, block = 0x9ABCDEF1, 45, 2, 64
    got = run_sass("sass_uniform_ops", "sass_uniform_loop", blocks, block, ["o", a, n],
                   {"o": np.zeros(blocks * block, np.uint32)}, must_hold=("ULOP3.LUT", "UPRMT"))
    for t in range(block):
        acc = 0
        for k in range(n):
            r, col = (k * 7) & 31, byte_perm(k, a, 0x1054) & 31
            acc += ((r * a + col) ^ (col * a + r) ^ popc(k & a)) & M32
        assert int(got["o"][t]) == acc & M32 and int(got["o"][block + t]) == acc & M32, f"thread {t}"


# ---- 4. fmin / fmax of doubles, half |x|, VHMNMX -----------------------------------------------

def dmin(x, y, want_min=True):
    if np.isnan(x):
        return y
    if np.isnan(y):
        return x
    if x == y:                                    # -0 is below +0
        return (x if np.signbit(x) else y) if want_min else (y if np.signbit(x) else x)
    return min(x, y) if want_min else max(x, y)


def test_double_min_max_and_half_abs_forms():
    rng = np.random.default_rng(64)
    n = 128
    da, db = rng.standard_normal(n) * 3, rng.standard_normal(n) * 3
    da[::7], db[::5], da[1::9], db[1::9] = np.nan, -0.0, 0.0, -0.0
    ha = (rng.standard_normal(n) * 4).astype(np.float16)
    hb = (rng.standard_normal(n) * 4).astype(np.float16)
    hb[::11] = 0
    fa = (rng.standard_normal(n) * 1e3).astype(np.float32)
    bufs = dict(da=da, db=db, ha=ha.view(np.uint16), hb=hb.view(np.uint16), fa=fa, do=np.zeros(4 * n),
                ho=np.zeros(6 * n, np.uint16), io=np.zeros(2 * n, np.int32))
    args = ["da", "db", "ha", "hb", "fa", "do", "ho", "io", n]
    got = run_sass("sass_minmax_half", None, 1, 128, args, bufs,
                   must_hold=("DSETP.MIN", "DSETP.MAX", "VHMNMX", "|.H0_H0"))
    d = got["do"].reshape(n, 4)
    for i in range(n):
        x, y = da[i], db[i]
        want = [dmin(x, y), dmin(x, y, False), dmin(dmin(x, 2.5), -1.0, False), dmin(x * y, abs(y))]
        np.testing.assert_array_equal(d[i], want, err_msg=f"doubles of thread {i}")
    h = got["ho"].reshape(n, 6)
    ah, aq = np.abs(ha), np.abs(hb)
    np.testing.assert_array_equal(h[:, 0], ah.view(np.uint16))
    np.testing.assert_array_equal(h[:, 2], np.maximum(ah, hb).view(np.uint16))
    np.testing.assert_array_equal(h[:, 3], np.minimum(np.minimum(ha, hb), aq).view(np.uint16))
    np.testing.assert_array_equal(h[:, 4], (ah > aq).astype(np.uint16))
    np.testing.assert_array_equal(h[:, 5], (ah.astype(np.float32) + hb.astype(np.float32)).astype(np.float16).view(np.uint16))
    # __hdiv is ptxas's reciprocal-and-correct sequence: PTX mode (validated on the H100) is the reference
    ptx = launch(load_kernel(str(CUDA / "sass_minmax_half.ptx"), None, "ptx"), 1, 128, args,
                 {k: v.copy() for k, v in bufs.items()}).buffers
    np.testing.assert_array_equal(h[:, 1], ptx["ho"].reshape(n, 6)[:, 1])
    io = got["io"].reshape(n, 2)
    assert io[:, 0].tolist() == [int(np.trunc(min(v, np.float32(1e9)))) for v in fa]
    assert io[:, 1].tolist() == [int(np.rint(v)) if v > 0 else 4 for v in fa]


# ---- 5. a stack frame ptxas writes as VIADD R1, R1, 0xffff.... ---------------------------------

def spill_reference(x):
    a = [0] * 12
    for k in range(12):
        x = (x * 1664525 + 1013904223) & M32
        a[k] = x ^ (x >> 13)
    acc = list(range(8))
    for k in range(24):
        v = a[(x + k * 5) % 12]
        acc[0] = (acc[0] + v) & M32
        acc[1] ^= (v * 3) & M32
        acc[2] = (acc[2] + (acc[1] >> 3)) & M32
        acc[3] = (acc[3] * 7 + v) & M32
        acc[4] ^= (acc[3] + acc[0]) & M32
        acc[5] = (acc[5] + (acc[4] ^ v)) & M32
        acc[6] = ((acc[6] << 1) ^ acc[5]) & M32
        acc[7] = (acc[7] + acc[6] + acc[2]) & M32
        a[(v + k) % 12] = acc[7] ^ acc[0]
        x = (x * 1103515245 + 12345) & M32
    return [acc[0] ^ acc[1] ^ acc[2] ^ acc[3], (acc[4] + acc[5] + acc[6] + acc[7]) & M32, a[x % 12]]


def test_spilling_kernel_keeps_each_thread_in_its_own_frame():
    program = load_kernel(str(CUDA / "sass_spill.ptx"), None, "sass")
    assert any(t.startswith("VIADD R1, R1, 0xffff") for t in program.texts)     # the frame as ptxas 13 writes it
    assert program.local_size >= 0x148
    n = 200
    x = words(np.random.default_rng(65), n)
    got = launch(program, 2, 128, ["x", "o", n], {"x": x, "o": np.zeros(3 * n, np.uint32)}).buffers
    assert got["o"].reshape(n, 3).tolist() == [spill_reference(int(v)) for v in x]


def instruction(text, pc=0):
    guard, _, rest = text.partition(" ") if text.startswith("@") else ("", "", text)
    opcode, _, ops = rest.partition(" ")
    return SassInstruction(pc, guard, opcode, split_operands(ops), (0, 0), ControlCodes(0, 0, None, None, 0, 0))


def kernel_of(*texts):
    return SassKernel("k", tuple(instruction(t, 16 * i) for i, t in enumerate(texts)))


def test_stack_frame_is_the_twos_complement_immediate_and_unknown_forms_are_refused():
    assert stack_frames(kernel_of("LDC R1, c[0x0][0x28]", "VIADD R1, R1, 0xffffffe8", "EXIT")) == (0x18, 0)
    assert stack_frames(kernel_of("LDC R1, c[0x0][0x28]", "IADD3 R1, R1, -0x30, RZ", "IADD3 R1, R1, 0x30, RZ",
                                  "EXIT")) == (0x30, 0)
    with pytest.raises(SassLoweringError, match=r"pc 0x0010: writes the stack pointer R1"):
        stack_frames(kernel_of("LDC R1, c[0x0][0x28]", "IADD3 R1, R1, -R2, RZ", "EXIT"))
    with pytest.raises(SassLoweringError, match="stack pointer R1"):
        stack_frames(kernel_of("LDC R1, c[0x0][0x28]", "MOV R1, R4", "EXIT"))


# ---- 6. recursion and divergent loops ----------------------------------------------------------

def rsum(v, depth):
    if depth == 0 or v == 0:
        return v & 7
    d = v % 10
    return (d + rsum(v // 10, depth - 1) * (3 if d & 1 else 1)) & M32


def rfib(k):
    return k if k < 2 else rfib(k - 1) + rfib(k - 2)


def walk(x, depth):
    if depth <= 0:
        return x
    if x & 1:
        return walk((x * 3 + 1) & M32, depth - 1) ^ depth
    return (walk(x >> 1, depth - 2) + depth) & M32


def test_recursion_with_data_dependent_depth():
    n = 100
    x = words(np.random.default_rng(66), n)
    got = run_sass("sass_recursion", "sass_recursion", 2, 64, ["x", "o", n], {"x": x, "o": np.zeros(3 * n, np.uint32)},
                   must_hold=("CALL.REL.NOINC", "RET.REL.NODEC", "BMOV.32.CLEAR"))
    want = []
    for v in (int(u) for u in x):
        acc = 0
        for k in range((v & 3) + 1):
            if (v >> k) & 1:
                acc = (acc + rsum((v + k) & M32, (v >> 4) & 7)) & M32
            else:
                acc ^= walk((v + k) & M32, (v >> 8) & 15)
        want.append([acc, rfib(v % 11), rsum(v, 9)])
    assert got["o"].reshape(n, 3).tolist() == want


def test_divergent_loops_and_barriers_over_two_blocks():
    n, block = 250, 128
    x = words(np.random.default_rng(67), n)
    got = run_sass("sass_recursion", "sass_divergent_loops", 2, block, ["x", "o", n],
                   {"x": x, "o": np.zeros(2 * n, np.uint32)}, must_hold=("BAR.SYNC", "BSSY", "BSYNC"))
    out = got["o"].reshape(n, 2)
    for blk in range(2):
        accs, rs = [], []
        for t in range(block):
            i = blk * block + t
            v = int(x[i]) if i < n else 0
            acc = v
            for k in range(v & 15):
                if (acc >> k) & 1:
                    continue
                acc = (acc * 5 + k) & M32
                if (acc & 31) == 7:
                    break
                j = 0
                while j < ((acc >> 3) & 7):
                    acc ^= acc >> (j + 1)
                    j += 1
            accs.append(acc)
        for t in range(block):
            other, r = accs[(t + 37) % block], 0
            if t & 1:
                for k in range(other & 7, 9):
                    r = (r + k * other) & M32
                    if r & 0x100:
                        break
            else:
                while True:
                    r = (r * 3 + (other & 3)) & M32
                    other >>= 2
                    if not other:
                        break
            rs.append(r)
        for t in range(block):
            i = blk * block + t
            if i < n:
                assert out[i].tolist() == [(rs[t] + rs[block - 1 - t]) & M32, accs[t]], f"thread {i}"


# ---- lowering: forms the kernels above do not reach ----------------------------------------------

def lower_one(text):
    b = RowBuilder(SassKernel("k", ()), "test")
    return b, lower_instruction(b, instruction(text))


def test_float_immediates_of_conversions_and_minmax_compares_lower():
    b, row = lower_one("F2I.TRUNC.NTZ R0, 3.5")
    assert b.u64[row[E.F_OPS + E.OPERAND_FIELDS + 1]] == 0x40600000
    b, row = lower_one("F2F.F32.F64 R0, 2.5")
    assert b.u64[row[E.F_OPS + E.OPERAND_FIELDS + 1]] == 0x4004000000000000
    _, row = lower_one("DSETP.MAX.AND P0, P1, R2, R4, PT")
    assert row[E.F_CMP] == E.CMP_MAX_SELECT
    b, row = lower_one("F2I.F16.FLOOR.NTZ R16, 8520")          # __half2int_rd of a constant half (k01211)
    assert b.u64[row[E.F_OPS + E.OPERAND_FIELDS + 1]] == 0x7029
    b, row = lower_one("F2I.BF16.NTZ R16, 2.5")
    assert b.u64[row[E.F_OPS + E.OPERAND_FIELDS + 1]] == 0x4020
    with pytest.raises(SassLoweringError, match="does not fit"):
        lower_one("F2I.TRUNC.NTZ R0, 1e+39")


@pytest.mark.parametrize("text, message", [
    ("IADD3 R0, R1.H1, R2, RZ", r"IADD3.*\.H1"),
    ("I2F.U32 R0, R1.B2", r"\.B2"),
    ("ATOMS.POPC.INC.32 R3, [R2]", "result register"),
    ("ATOMS.CAST.SPIN.128 R3, [R2], R4, R5", "CAST"),
])
def test_forms_without_semantics_are_refused_by_name(text, message):
    with pytest.raises(SassLoweringError, match=message):
        lower_one(text)


def test_nested_loops_with_cas_loops_reopen_their_barrier_without_deadlock():
    """Lanes that leave the loops early reopen the outer body's barrier (BSSY) while others wait at
    it: the waiters go on (a false 'barrier deadlock' before)."""
    n = 200
    for seed in range(2):
        x = words(np.random.default_rng(70 + seed), n)
        bufs = dict(x=x, a=np.zeros(4, np.float32), b=np.zeros(4, np.uint64), o=np.zeros(n, np.uint32))
        got = run_sass("sass_recursion", "sass_yield_loops", 2, 128, ["x", "a", "b", "o", n], bufs,
                       must_hold=("YIELD", "ATOMG.E.CAS"))
        acc, acc64, out = [0.0] * 4, [0] * 4, []
        for v in (int(u) for u in x):
            r = v
            for k in range(v & 7):
                for j in range((v >> (3 * k)) & 3):
                    acc64[(v >> j) & 3] += j + 1
                    r = (r * 3 + j) & M32
                acc[k & 3] += 1.0
                if (r & 15) == 3:
                    break
            out.append(r)
        assert got["o"].tolist() == out
        assert got["a"].tolist() == acc and got["b"].tolist() == acc64


def to_int(x, mode, lo, hi):
    """A float converted to an integer with the rounding mode and clamped to [lo, hi] (NaN: 0)."""
    if x != x:
        return 0
    if np.isinf(x):
        return hi if x > 0 else lo
    r = {"rn": np.rint, "rz": np.trunc, "rd": np.floor, "ru": np.ceil}[mode](x)
    return int(min(max(r, lo), hi))


def test_bf16_and_half_to_integer_conversions():
    rng = np.random.default_rng(68)
    n = 160
    f = np.concatenate([rng.standard_normal(n // 2) * 40, rng.standard_normal(n // 4) * 1e6,
                        [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3e9, -3e9, 5e4, -5e4, 7e4, -7e4, np.inf, -np.inf, 0.0, -0.0],
                        rng.standard_normal(n // 4 - 16) * 3e4]).astype(np.float32)
    b = (f.view(np.uint32) >> 16).astype(np.uint16)              # bf16: the upper half (truncated)
    with np.errstate(over="ignore"):
        h = f.astype(np.float16).view(np.uint16)
    got = run_sass("sass_subword_convert", "sass_bf16_to_int", 2, 96, ["b", "h", "k", n],
                   {"b": b, "h": h, "k": np.zeros(8 * n, np.int32)},
                   must_hold=("F2I.BF16.NTZ", "F2I.U32.BF16.TRUNC.NTZ R21, -R", "|R"))
    k = got["k"][:6 * n].reshape(n, 6)
    signed = got["k"][6 * n:].reshape(n, 2)
    xb = (b.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    xh = h.view(np.float16).astype(np.float64)
    i32, u32, i16 = (-2**31, 2**31 - 1), (0, 2**32 - 1), (-2**15, 2**15 - 1)
    for i in range(n):
        want = [to_int(xb[i], "rn", *i32), to_int(xb[i], "rz", *u32), to_int(xb[i], "rd", *i32) ^ 0x55,
                to_int(xh[i], "rn", *i32), to_int(xh[i], "ru", *u32),
                to_int(xb[i], "rz", *i16) + to_int(xh[i], "rz", *i16)]
        want = [((w + 2**31) % 2**32) - 2**31 for w in want]
        assert k[i].tolist() == want, f"thread {i}: bf16 {xb[i]}, half {xh[i]}"
        flipped = [to_int(-xb[i], "rz", *u32), to_int(abs(xh[i]), "rn", *i32)]
        assert signed[i].tolist() == [((w + 2**31) % 2**32) - 2**31 for w in flipped], f"thread {i}: -x / |x|"


def halves(v, signed):
    lo, hi = v & 0xFFFF, v >> 16
    if signed:
        lo, hi = (lo - 0x10000 if lo & 0x8000 else lo), (hi - 0x10000 if hi & 0x8000 else hi)
    return lo, hi


def pack(lo, hi):
    return (lo & 0xFFFF) | ((hi & 0xFFFF) << 16)


def test_packed_16bit_add_sub_min_max():
    rng = np.random.default_rng(69)
    n = 150
    a, b = words(rng, n), words(rng, n)
    a[:6] = [0x7FFF8000, 0xFFFF0000, 0x00010001, 0x80008000, 0, 0xFFFFFFFF]
    b[:6] = [0x80007FFF, 0x0001FFFF, 0xFFFFFFFF, 0x80000001, 0xFFFF0001, 0x00000001]
    got = run_sass("sass_simd16", None, 2, 96, ["a", "b", "o", n], {"a": a, "b": b, "o": np.zeros(12 * n, np.uint32)},
                   must_hold=("VIADD.16x2", "VIMNMX.U16x2", "VIMNMX.S16x2"))
    o = got["o"].reshape(n, 12)
    for i in range(n):
        x, y = int(a[i]), int(b[i])
        (xl, xh), (yl, yh) = halves(x, False), halves(y, False)
        (sxl, sxh), (syl, syh) = halves(x, True), halves(y, True)
        assert int(o[i, 0]) == pack(xl + yl, xh + yh), f"__vadd2 thread {i}"
        assert int(o[i, 1]) == pack(xl - yl, xh - yh), f"__vsub2 thread {i}"
        assert int(o[i, 2]) == pack(max(xl, yl), max(xh, yh)) and int(o[i, 3]) == pack(min(xl, yl), min(xh, yh))
        assert int(o[i, 4]) == pack(max(sxl, syl), max(sxh, syh)) and int(o[i, 5]) == pack(min(sxl, syl), min(sxh, syh))
        assert int(o[i, 6]) == pack(abs(xl - yl), abs(xh - yh)) and int(o[i, 7]) == pack(abs(sxl - syl), abs(sxh - syh))
        sat = lambda v: min(max(v, -0x8000), 0x7FFF)    # noqa: E731
        assert int(o[i, 8]) == pack(sat(sxl + syl), sat(sxh + syh)), f"__vaddss2 thread {i}"
        assert int(o[i, 9]) == pack((xl + yl + 1) >> 1, (xh + yh + 1) >> 1), f"__vavgu2 thread {i}"
        assert int(o[i, 10]) == pack(-xl, -xh), f"__vneg2 thread {i}"
        m1 = pack(max(xl, 1), max(xh, 0))
        m2 = pack(min(syl, 3), min(syh, 3))
        assert int(o[i, 11]) == m1 ^ m2, f"thread {i}"


def bf16_round(f32):
    """float32 values rounded to bfloat16 bits (to nearest even; NaN: 0x7fff)."""
    u = np.asarray(f32, np.float32).view(np.uint32).astype(np.int64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF
    return np.where(np.isnan(f32), 0x7FFF, r).astype(np.uint16)


def test_half_and_bf16_immediates_inf_and_subnormal():
    rng = np.random.default_rng(71)
    n = 128
    xb = bf16_round((rng.integers(-1000, 1000, n) / 4).astype(np.float32))
    xb[:4] = [0xFF80, 0x7F80, 0x0000, 0x8000]                      # -inf, +inf, +0, -0
    yh = (rng.standard_normal(n) * 100).astype(np.float16).view(np.uint16)
    yh[:4] = [0x7C00, 0xFC00, 0x7E00, 0x8001]                      # +inf, -inf, NaN, a subnormal
    got = run_sass("sass_half_imm", None, 1, 128, ["b", "h", "o", n],
                   {"b": xb, "h": yh, "o": np.zeros(4 * n, np.uint16)}, must_hold=("+INF", "-INF"))
    o = got["o"].reshape(n, 4)
    x = (xb.astype(np.uint32) << 16).view(np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        np.testing.assert_array_equal(o[:, 0], bf16_round(x + np.float32(np.inf)))
        np.testing.assert_array_equal(o[:, 1], bf16_round((x.astype(np.float64) * 2.0 ** -133).astype(np.float32)))
        y = yh.view(np.float16).astype(np.float64)
        s = y - np.inf
        np.testing.assert_array_equal(o[:, 2], np.where(np.isnan(s), 0x7FFF, s.astype(np.float16).view(np.uint16)))
        p = y * 2.0 ** -24
        np.testing.assert_array_equal(o[:, 3], np.where(np.isnan(p), 0x7FFF, p.astype(np.float16).view(np.uint16)))


def test_generic_atomics_on_shared_and_global_addresses():
    rng = np.random.default_rng(72)
    n, blocks, block = 200, 2, 128
    x = words(rng, n)
    got = run_sass("sass_generic_atomics", None, blocks, block, ["x", "g", "o", n],
                   {"x": x, "g": np.zeros(12, np.uint32), "o": np.zeros(16 * blocks, np.uint32)},
                   must_hold=("ATOM.E.CAS", "ATOM.E.ADD", "ATOM.E.MAX"))
    v = x.astype(np.int64)
    g = [0] * 12
    for u in v.tolist():
        g[u & 3] += 1
        g[4 + ((u >> 5) & 3)] += 2
        g[8 + ((u >> 9) & 3)] = max(g[8 + ((u >> 9) & 3)], u >> 4)
    assert got["g"].tolist() == g
    for blk in range(blocks):
        s = [0] * 16
        for u in v[blk * block:(blk + 1) * block].tolist():
            s[u & 7] = (s[u & 7] + (u >> 24)) & M32
            s[8 + ((u >> 3) & 3)] += u & 0xFF
            s[12 + ((u >> 7) & 3)] = max(s[12 + ((u >> 7) & 3)], u >> 8)
        assert got["o"][blk * 16:(blk + 1) * 16].tolist() == s, f"block {blk}"


def test_uniform_vote_and_trap():
    n, block = 150, 64
    x = words(np.random.default_rng(73), n)
    x[0:32] |= 1                                        # warp 0: p holds in every lane
    x[32:64] &= ~np.uint32(3)                           # warp 1: p holds in no lane
    x[64:96] &= np.uint32(0x7FFFFFFF)                   # warp 2: q holds in no lane
    program = load_kernel(str(CUDA / "sass_vote_trap.ptx"), None, "sass")
    assert any(t.startswith("VOTE.EQ") for t in program.texts) and any(t.startswith("BPT.TRAP") for t in program.texts)
    got = launch(program, 3, block, ["x", "o", n], {"x": x, "o": np.zeros(n, np.uint32)}).buffers["o"]
    for w0 in range(0, n, 32):
        v = x[w0:min(w0 + 32, n)]
        p, q = (v & 3) != 0, (v >> 31) != 0
        want = int(p.all() or not p.any()) | (int(q.all() or not q.any()) << 1)
        assert got[w0:w0 + len(v)].tolist() == [want] * len(v), f"warp at thread {w0}"
    x[77] = 0xDEADBEEF
    with pytest.raises(RuntimeFault, match="trap"):
        launch(program, 3, block, ["x", "o", n], {"x": x, "o": np.zeros(n, np.uint32)})


def test_stack_limit_register_reads_the_bottom_of_local_memory():
    """-G code checks R1 against SR_LMEMHIOFF in every function's prologue (BPT.TRAP below it)."""
    b, row = lower_one("S2R R0, SR_LMEMHIOFF")
    kind, idx = row[E.F_OPS + E.OPERAND_FIELDS], row[E.F_OPS + E.OPERAND_FIELDS + 1]
    assert kind == E.K_IMM and b.u64[idx] == 0
    _, row = lower_one("BPT.TRAP 0x1")
    assert row[E.F_OP] == E.OP_TRAP


def mix(x, d):
    if d == 0:
        return x ^ 0xA5551AAC
    t = mix((x * 56427 + 2444) & M32, d - 1)
    return ((t + (x >> 1)) & M32) if d & 1 else t ^ int(f"{x:032b}"[::-1], 2)


def test_recursive_callers_leave_a_loop_while_others_wait_at_its_barrier():
    n = 200
    for seed in range(3):
        x = words(np.random.default_rng(80 + seed), n)
        got = run_sass("sass_recursion", "sass_recursion_exit", 2, 128, ["x", "o", n],
                       {"x": x, "o": np.zeros(2 * n, np.uint32)}, must_hold=("BMOV.32.CLEAR", "CALL.REL.NOINC"))
        want = []
        for v in (int(a) for a in x):
            u, out = v, None
            for k in range((v & 3) + 1):
                u = mix(u ^ k, (v >> (4 * k)) & 7)
                if (u & 7) == 5:
                    out = [u, k]
                    break
                u = (u + k * 977) & M32
            want.append(out or [u, 99])
        assert got["o"].reshape(n, 2).tolist() == want, f"seed {seed}"


@pytest.mark.parametrize("kid", ["k00003", "k04409"])
def test_generated_corpus_kernels_match_their_h100_recording(kid):
    """Two kernels of the generated corpus (simt_sim/calibrate/corpus_gen.py; their PTX units in
    tests/cuda/corpus_*.ptx) that SASS mode stopped with a false barrier deadlock (k00003: a YIELD
    loop reopening its barrier) or ran wrong (k04409: the barrier a recursive callee saves and
    restores while other lanes wait at the caller's BSYNC), against the H100's recorded outputs."""
    from simt_sim.calibrate import corpus as C
    records = C.load_records()
    rec = next(r for r in records["kernels"] if r["id"] == kid)
    words = C.simulate_words(CUDA / f"corpus_{kid}.ptx", C.spec_of(rec), "sass")
    cls, msg, _ = C.compare(words, rec)
    assert cls == "exact", msg
