#!/usr/bin/env python3
"""Write the operand files of the SASS differential-test programs (programs/sass-diff/s-*/*.npy).

    python tools/make_sass_diff.py                 # every s-* program
    python tools/make_sass_diff.py s-fp32 s-half   # only these
    python tools/make_sass_diff.py --check         # exit 1 when a committed file differs

Deterministic: numpy's PCG64 with a fixed seed per program (SEED + the program's position in
PROGRAMS), so rerunning rewrites byte-identical files.  Each operand array starts with edge
cases (docs/sass-differential.md lists them): for two-operand programs, every pair of the first
m edge values (m*m <= n/2), then each remaining edge against random values, then random values
from a mixture that exercises rounding (values of similar magnitude, exact cancellations, wide
exponent ranges, raw bit patterns).  Float operands are stored as their bit patterns (uint32 /
uint64) so NaN payloads, -0.0 and denormals reach the kernel unchanged.
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from simt_sim.programs import program_dir  # noqa: E402
SEED = 20260512

U32 = np.uint32
U64 = np.uint64

INT_EDGES = [0, 1, 2, 3, 7, 31, 32, 33, 63, 64, 65, 127, 128, 255, 256, 0x7fff, 0x8000, 0xffff, 0x10000,
             0x12345678, 0x55555555, 0xaaaaaaaa, 0x7ffffffe, 0x7fffffff, 0x80000000, 0x80000001,
             0xfffffffe, 0xffffffff, 0xffffff80, 0xff000000]
# shift counts: the boundaries of 32- and 64-bit shifts, and counts far above them
SHIFT_EDGES = [0, 1, 4, 31, 32, 33, 63, 64, 65, 127, 255, 0x80000000, 0xffffffff, 0x1f, 0x20, 0x3f]
F32_EDGES = [
    0x00000000, 0x80000000,                     # +0, -0
    0x7f800000, 0xff800000,                     # +inf, -inf
    0x7fc00000, 0x7fc12345, 0x7f800001, 0xffc00001,   # quiet NaN, NaN with payload, signalling, negative
    0x00000001, 0x007fffff, 0x80000001,         # smallest / largest denormal, negative denormal
    0x00800000, 0x80800000,                     # +-FLT_MIN
    0x7f7fffff, 0xff7fffff,                     # +-FLT_MAX
    0x3f800000, 0xbf800000, 0x3f000000, 0x3fc00000, 0x40200000, 0xc0200000,   # 1 -1 0.5 1.5 2.5 -2.5
    0x3f800001, 0x3effffff,                     # 1 + ulp, 0.49999997
    0x4b800000, 0x4b800001,                     # 2^24, 2^24 + 2
    0x4f000000, 0xcf000000, 0x4f800000,         # 2^31, -2^31, 2^32 (int conversion limits)
    0x5f000000, 0x5f800000,                     # 2^63, 2^64
    0x477fe000, 0x477ff000,                     # 65504 (f16 max), 65520 (rounds to f16 inf)
    0x40490fdb, 0x33800000, 0x387fc000,         # pi, 2^-24 (smallest f16 denormal), f16 denormal range
]
F64_EDGES = [
    0x0000000000000000, 0x8000000000000000,
    0x7ff0000000000000, 0xfff0000000000000,
    0x7ff8000000000000, 0x7ff8000000012345, 0x7ff0000000000001, 0xfff8000000000001,
    0x0000000000000001, 0x000fffffffffffff, 0x8000000000000001,
    0x0010000000000000, 0x7fefffffffffffff, 0xffefffffffffffff,
    0x3ff0000000000000, 0xbff0000000000000, 0x3fe0000000000000, 0x3ff8000000000000,
    0x4004000000000000, 0xc004000000000000, 0x3ff0000000000001,
    0x41e0000000000000, 0xc1e0000000000000, 0x41f0000000000000,   # 2^31, -2^31, 2^32
    0x43e0000000000000, 0xc3e0000000000000, 0x43f0000000000000,   # 2^63, -2^63, 2^64
    0x4340000000000001,                                           # 2^53 + 2
    0x47efffffe0000000, 0x47effffff0000000,                       # FLT_MAX, FLT_MAX + half an ulp
    0x36a0000000000000, 0x3ff0000010000000,                       # 2^-149, 1 + 2^-24 (f32 tie)
    0x40effc0000000000, 0x40effe0000000000,                       # 65504, 65520
    0x01a56e1fc2f8f359,                                           # 1e-300
]
F16_EDGES = [0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x7e55, 0x7c01, 0xfe01, 0x0001, 0x03ff, 0x8001,
             0x0400, 0x7bff, 0xfbff, 0x3c00, 0xbc00, 0x3800, 0x3e00, 0x4100, 0x3c01, 0x0200]
BF16_EDGES = [0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0x7fc5, 0x7f81, 0x0001, 0x007f, 0x0080, 0x7f7f,
              0xff7f, 0x3f80, 0xbf80, 0x3f00, 0x3fc0, 0x4020, 0x3f81]


# ---- random values ------------------------------------------------------------------------------

def random_ints(rng, n: int) -> np.ndarray:
    """Thirds: any 32-bit pattern, small signed values, values next to a power of two."""
    kind = rng.integers(0, 3, n)
    full = rng.integers(0, 2**32, n, dtype=np.uint64)
    small = (rng.integers(-300, 301, n) % 2**32).astype(np.uint64)
    near = ((np.uint64(1) << rng.integers(0, 32, n).astype(np.uint64)) + rng.integers(-2, 3, n).astype(np.uint64)) % 2**32
    return np.where(kind == 0, full, np.where(kind == 1, small, near)).astype(U32)


def nice_f32(rng, n: int, lo: int = -30, hi: int = 30) -> np.ndarray:
    """Finite floats with a random sign, 24-bit mantissa and an exponent in [lo, hi]."""
    m = rng.integers(2**23, 2**24, n).astype(np.float64) / 2**23
    v = m * np.exp2(rng.integers(lo, hi + 1, n).astype(np.float64)) * rng.choice([-1.0, 1.0], n)
    return v.astype(np.float32).view(U32)


def random_f32(rng, n: int) -> np.ndarray:
    """Half nice values, a quarter raw bit patterns (every class, NaNs included), a quarter small
    integers and halves (exact ties for the rounding modes)."""
    kind = rng.integers(0, 4, n)
    raw = rng.integers(0, 2**32, n, dtype=np.uint64).astype(U32)
    ties = (rng.integers(-64, 65, n) / 2.0).astype(np.float32).view(U32)
    nice = nice_f32(rng, n)
    return np.where(kind < 2, nice, np.where(kind == 2, raw, ties)).astype(U32)


def random_f64(rng, n: int) -> np.ndarray:
    kind = rng.integers(0, 4, n)
    m = rng.random(n) + 1.0
    nice = (m * np.exp2(rng.integers(-60, 61, n).astype(np.float64)) * rng.choice([-1.0, 1.0], n)).view(U64)
    raw = rng.integers(0, 2**64, n, dtype=np.uint64)
    ties = (rng.integers(-2**40, 2**40, n) / 2.0).view(U64)
    return np.where(kind < 2, nice, np.where(kind == 2, raw, ties)).astype(U64)


def random_f16(rng, n: int) -> np.ndarray:
    v = rng.standard_normal(n) * np.exp2(rng.integers(-8, 9, n).astype(np.float64))
    with np.errstate(over="ignore"):                   # large values become inf, as intended
        return v.astype(np.float16).view(np.uint16).astype(U32)


def unit_f16(rng, n: int) -> np.ndarray:
    """N(0, 1) values as f16 bit patterns (tensor-core tiles that stay finite)."""
    return rng.standard_normal(n).astype(np.float16).view(np.uint16).astype(U32)


def random_bf16(rng, n: int) -> np.ndarray:
    v = (rng.standard_normal(n) * np.exp2(rng.integers(-20, 21, n).astype(np.float64))).astype(np.float32)
    return (v.view(U32) >> U32(16)).astype(U32)


# ---- layouts: edge cases first ------------------------------------------------------------------

def pair_layout(edges: list[int], n: int, rng, random_fn, dtype=U32) -> tuple[np.ndarray, ...]:
    """(a, b, c): every pair (a, b) of the first m edges (m*m <= n/2), each remaining edge against
    random values (as a and as b), then random values; c walks the edge list beside the pairs."""
    e = np.array(edges, dtype=dtype)
    m = min(len(e), math.isqrt(n // 2))
    a, b, c = random_fn(rng, n), random_fn(rng, n), random_fn(rng, n)
    j, k = np.divmod(np.arange(m * m), m)
    a[:m * m], b[:m * m] = e[j], e[k]
    c[:m * m] = e[(j + k) % len(e)]
    rest = e[m:]
    pos = m * m
    for x in rest:                               # the remaining edges: once as a, once as b
        if pos + 2 > n:
            break
        a[pos], b[pos + 1] = x, x
        pos += 2
    return a.astype(dtype), b.astype(dtype), c.astype(dtype)


def edges_first(edges: list[int], n: int, rng, random_fn, dtype=U32) -> np.ndarray:
    v = random_fn(rng, n).astype(dtype)
    v[:len(edges)] = np.array(edges, dtype=dtype)
    return v


def with_cancellation(a: np.ndarray, b: np.ndarray, c: np.ndarray, start: int, count: int) -> None:
    """c[i] = -fl(a[i] * b[i]) on [start, start + count): FFMA then rounds only its exact remainder."""
    s = slice(start, start + count)
    with np.errstate(all="ignore"):
        c[s] = (-(a[s].view(np.float32) * b[s].view(np.float32))).view(U32)


# ---- per program --------------------------------------------------------------------------------

def ints3(rng, n):
    a, b, c = pair_layout(INT_EDGES, n, rng, random_ints)
    return {"a": a, "b": b, "c": c}


def shift_operands(rng, n):
    a, b, _ = pair_layout(INT_EDGES, n, rng, random_ints)
    counts = rng.integers(0, 71, n).astype(U32)
    wide = rng.random(n) < 0.2
    counts[wide] = random_ints(rng, int(wide.sum()))
    counts[:n // 2] = np.array(SHIFT_EDGES, dtype=U32)[np.arange(n // 2) % len(SHIFT_EDGES)]
    return {"a": a, "b": b, "c": counts}


def fp32_operands(rng, n):
    a, b, c = pair_layout(F32_EDGES, n, rng, random_f32)
    with_cancellation(a, b, c, n - n // 8, n // 8)
    return {"a": a, "b": b, "c": c}


def fp64_operands(rng, n):
    a, b, c = pair_layout(F64_EDGES, n, rng, random_f64, U64)
    s = slice(n - n // 8, n)
    with np.errstate(all="ignore"):
        c[s] = (-(a[s].view(np.float64) * b[s].view(np.float64))).view(U64)
    return {"a": a, "b": b, "c": c}


def mufu_operands(rng, n):
    a = edges_first(F32_EDGES, n, rng, lambda r, k: nice_f32(r, k, -126, 127))
    b = (rng.random(n) * 200.0 - 100.0).astype(np.float32).view(U32)
    b[:8] = np.array([0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x00000001,
                      0x42b00000, 0xc2b00000], dtype=U32)             # +-0, +-inf, NaN, denormal, +-88
    c = (rng.random(n) * 2 * np.pi - np.pi).astype(np.float32).view(U32)
    c[:6] = np.array([0x00000000, 0x80000000, 0x40490fdb, 0xc0490fdb, 0x3fc90fdb, 0x7fc00000], dtype=U32)
    d = edges_first(F64_EDGES, n, rng, random_f64, U64)
    return {"a": a, "b": b, "c": c, "d": d}


def convert_operands(rng, n):
    near_int = (rng.integers(-2**33, 2**33, n) + rng.choice([-0.5, 0.0, 0.5, 0.25, 0.75], n)).astype(np.float32)
    a = edges_first(F32_EDGES, n, rng, random_f32)
    a[n // 2:3 * n // 4] = near_int[n // 2:3 * n // 4].view(U32)
    b = edges_first(INT_EDGES + [0x01000001, 0xfeffffff, 0x00ffffff] + F16_EDGES, n, rng, random_ints)
    d = edges_first(F64_EDGES, n, rng, random_f64, U64)
    return {"a": a, "b": b, "d": d}


def half_word(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    return (lo.astype(U32) & U32(0xffff)) | (hi.astype(U32) << U32(16))


def half_operands(rng, n):
    """First half: f16 edge pairs in the low halves, bf16 edge pairs in the high halves; then
    words of two random f16 values, then words of two random bf16 values."""
    lo = pair_layout(F16_EDGES, n // 2, rng, random_f16)
    hi = pair_layout(BF16_EDGES, n // 2, rng, random_bf16)
    quarter = n // 4
    ops = {}
    for name, l, h in zip("abc", lo, hi):
        f16 = half_word(random_f16(rng, quarter), random_f16(rng, quarter))
        bf16 = half_word(random_bf16(rng, quarter), random_bf16(rng, quarter))
        ops[name] = np.concatenate([half_word(l, h), f16, bf16]).astype(U32)
    return ops


def warp_operands(rng, n):
    a = edges_first(INT_EDGES, n, rng, random_ints)
    b = random_ints(rng, n)
    a[64:96], b[64:96] = U32(0x1234), U32(0x1200)        # warp 2: one value, x > y on every lane
    b[96:128] = rng.integers(0, 4, 32).astype(U32)       # warp 3: few distinct values (MATCH groups)
    return {"a": a, "b": b}


def atomic_operands(rng, n):
    a = edges_first(INT_EDGES, n, rng, random_ints)
    b = edges_first([0x7f800000, 0, 1, 0xffffffff, 0x80000000, 5, 0x3f800000], n, rng, random_ints)
    slot = random_ints(rng, 11 * n)
    even = np.arange(0, n, 2)
    slot[3 * n + even] = b[even]                          # atomicCAS succeeds for even i
    pick = rng.integers(0, 4, n)
    for k in (6, 7):                                      # inc / dec: at, below, above the limit, 0
        choice = np.stack([b, b + U32(1), b - U32(1), np.zeros(n, U32)])[pick, np.arange(n)]
        slot[k * n:(k + 1) * n] = choice
    red = np.array([0] * 8 + [0x7fffffff, 0, 0, 0, 0xffffffff, 0x80000000, 0xffffffff, 0xffffffff], U32)
    slot64 = random_ints(rng, 10 * n).view(U64)
    slot64[n + even] = (a[even].astype(U64) << U64(32)) | b[even].astype(U64)   # 64-bit CAS succeeds
    red64 = np.array([0, 0x8000000000000000, 0xffffffffffffffff, 0], U64)
    facc = edges_first(F32_EDGES, 2 * n, rng, random_f32).view(np.float32)
    dacc = random_f64(rng, n).view(np.float64)
    return {"a": a, "b": b, "slot": slot, "red": red, "slot64": slot64, "red64": red64,
            "facc": facc, "dacc": dacc}


def tensor_operands(rng, n):
    """Fragments in thread order; warp 0's tile holds edge values, the others N(0, 1) halves."""
    A = half_word(random_f16(rng, 4 * n), random_f16(rng, 4 * n))
    B = half_word(random_f16(rng, 2 * n), random_f16(rng, 2 * n))
    A[128:] = half_word(unit_f16(rng, 4 * n - 128), unit_f16(rng, 4 * n - 128))
    B[64:] = half_word(unit_f16(rng, 2 * n - 64), unit_f16(rng, 2 * n - 64))
    e16 = np.array(F16_EDGES, U32)
    A[:64] = half_word(e16[np.arange(64) % len(e16)], e16[(np.arange(64) * 7) % len(e16)])
    C = rng.standard_normal(4 * n).astype(np.float32).view(U32)
    C[:len(F32_EDGES)] = np.array(F32_EDGES, U32)
    D = rng.standard_normal(4 * n).view(U64)
    D[:len(F64_EDGES)] = np.array(F64_EDGES, U64)
    return {"A": A, "B": B, "C": C, "D": D}


def async_operands(rng, n):
    return {"a": random_ints(rng, 4 * n), "b": random_ints(rng, 2 * n), "c": random_ints(rng, n)}


def memory_operands(rng, n):
    a = edges_first(INT_EDGES, n, rng, random_ints)
    return {"a": a, "b": random_ints(rng, n)}


def two_ints(rng, n):
    a, b, _ = pair_layout(INT_EDGES, n, rng, random_ints)
    return {"a": a, "b": b}


def one_int(rng, n):
    return {"a": edges_first(INT_EDGES, n, rng, random_ints)}


def extra_operands(rng, n):
    ops = ints3(rng, n)
    ops["a"][n // 2:] = random_f32(rng, n - n // 2)
    ops["a"][:len(F32_EDGES)] = np.array(F32_EDGES, U32)
    ops["d"] = edges_first(F64_EDGES, n, rng, random_f64, U64)
    return ops


# program: (operand count n, generator); n must equal the manifest's n argument
PROGRAMS = {
    "s-iadd3": (512, ints3),
    "s-imad": (512, ints3),
    "s-lop3": (512, ints3),
    "s-shift": (512, shift_operands),
    "s-isetp": (512, ints3),
    "s-int-misc": (512, ints3),
    "s-fp32": (512, fp32_operands),
    "s-mufu": (512, mufu_operands),
    "s-convert": (384, convert_operands),
    "s-half": (512, half_operands),
    "s-fp64": (480, fp64_operands),
    "s-warp": (512, warp_operands),
    "s-atomic": (512, atomic_operands),
    "s-atomic-shared": (512, two_ints),
    "s-memory": (512, memory_operands),
    "s-async": (512, async_operands),
    "s-tensor": (256, tensor_operands),
    "s-uniform": (512, one_int),
    "s-special": (512, None),
    "s-control": (512, one_int),
    "s-extra": (512, extra_operands),
}


def operands(name: str) -> dict[str, np.ndarray]:
    n, make = PROGRAMS[name]
    if make is None:
        return {}
    rng = np.random.default_rng(SEED + list(PROGRAMS).index(name))
    return make(rng, n)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("programs", nargs="*", help="program names (default: all s-* programs)")
    ap.add_argument("--check", action="store_true", help="compare with the committed files, write nothing")
    args = ap.parse_args(argv)
    unknown = [p for p in args.programs if p not in PROGRAMS]
    if unknown:
        print(f"error: no operand recipe for {', '.join(unknown)} (known: {', '.join(PROGRAMS)})", file=sys.stderr)
        return 2
    stale = []
    for name in args.programs or list(PROGRAMS):
        for array_name, values in operands(name).items():
            path = program_dir(name) / f"{array_name}.npy"
            if args.check:
                if not path.exists() or not np.array_equal(np.load(path).view(np.uint8), values.view(np.uint8)):
                    stale.append(str(path.relative_to(ROOT)))
                continue
            np.save(path, values)
            print(f"wrote {path.relative_to(ROOT)} ({values.dtype}[{values.size}])")
    if stale:
        print("stale or missing: " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
