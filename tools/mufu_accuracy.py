#!/usr/bin/env python
"""How far the H100's special-function unit (MUFU) is from the simulator's MUFU, per function.

The simulator computes each MUFU function in float64 and rounds to float32 (engine/functional/
alu.sfu32); the hardware's unit is an approximation (the PTX ISA documents `.approx` accuracy
bounds).  So a simulated approximate result can differ from the hardware's by up to the hardware's
own error.  This probe measures that difference on the GPU over a dense sweep of float32 inputs
(every STRIDE-th bit pattern of each function's domain, both signs where the domain has them) and
records, per PTX instruction, the largest |simulated - hardware| absolute and relative, and in
units in the last place (ulp of the hardware result), with the input that shows it.

The generated corpus (docs/corpus.md) compares a kernel's approximate words within a bound; a word
made by a function whose recorded difference exceeds its precision's default bound is compared
within the recorded difference instead (simt_sim.calibrate.corpus.approx_bounds).

    python tools/mufu_accuracy.py --gpu --out tests/data/h100/mufu_accuracy.json   # on the GPU machine
    python tools/mufu_accuracy.py                                                 # the recorded table
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RECORDED = ROOT / "tests" / "data" / "h100" / "mufu_accuracy.json"
APPROX_F32 = (2.0 ** -19, 2.0 ** -20)     # corpus_gen.APPROX_BOUND["f32"] (relative, absolute)
STRIDE = 61          # every 61st float32 bit pattern of a domain (odd: all mantissa residues are hit)

# PTX instruction -> (domain of |x| as float32 bounds, whether negative inputs are swept too,
# the simulator's function (the float64 formula of engine/functional/alu.sfu32))
FUNCS = {
    "tanh.approx.f32": ((2.0 ** -14, 10.0), True, np.tanh),
    "ex2.approx.ftz.f32": ((2.0 ** -14, 126.0), True, np.exp2),
    "lg2.approx.ftz.f32": ((2.0 ** -126, 2.0 ** 64), False, np.log2),
    "sin.approx.ftz.f32": ((2.0 ** -14, 64.0), True, np.sin),
    "cos.approx.ftz.f32": ((2.0 ** -14, 64.0), True, np.cos),
    "rcp.approx.ftz.f32": ((2.0 ** -100, 2.0 ** 100), True, lambda x: 1.0 / x),
    "rsqrt.approx.ftz.f32": ((2.0 ** -100, 2.0 ** 100), False, lambda x: 1.0 / np.sqrt(x)),
    "sqrt.approx.ftz.f32": ((2.0 ** -100, 2.0 ** 100), False, np.sqrt),
}


def inputs(name: str) -> np.ndarray:
    (lo, hi), signed, _ = FUNCS[name]
    a = np.float32(lo).view(np.uint32)
    b = np.float32(hi).view(np.uint32)
    bits = np.arange(a, b, STRIDE, dtype=np.uint64).astype(np.uint32)
    x = bits.view(np.float32)
    return np.concatenate([x, -x]) if signed else x


def simulated(name: str, x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return FUNCS[name][2](x.astype(np.float64)).astype(np.float32)


def on_gpu(name: str, x: np.ndarray) -> np.ndarray:
    import cupy
    src = r'''
extern "C" __global__ void f(const float *x, float *y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float r; asm("INSTR %0, %1;" : "=f"(r) : "f"(x[i])); y[i] = r; }
}'''.replace("INSTR", name)
    k = cupy.RawKernel(src, "f")
    dx = cupy.asarray(x)
    dy = cupy.empty_like(dx)
    k(((x.size + 255) // 256,), (256,), (dx, dy, np.uint32(x.size)))
    return dy.get()


def differences(x: np.ndarray, sim: np.ndarray, hw: np.ndarray) -> dict:
    s, h = sim.astype(np.float64), hw.astype(np.float64)
    ok = np.isfinite(s) & np.isfinite(h)
    same_special = (~ok) & ((s == h) | (np.isnan(s) & np.isnan(h)))
    mism_special = int(((~ok) & ~same_special).sum())
    s, h, xs = s[ok], h[ok], x[ok]
    ab = np.abs(s - h)
    rel = np.where(h != 0, ab / np.maximum(np.abs(h), 1e-300), np.where(ab == 0, 0.0, np.inf))
    ulp = ab / np.spacing(np.abs(hw[ok])).astype(np.float64)
    i_ab, i_rel, i_ulp = int(np.argmax(ab)), int(np.argmax(rel)), int(np.argmax(ulp))
    # the difference in units of the corpus's default float32 bound (corpus_gen.APPROX_BOUND["f32"])
    rel_b, abs_b = APPROX_F32
    scale = ab / (abs_b + rel_b * np.abs(h))
    return {"inputs": int(x.size), "equal": int((s == h).sum()), "special_mismatches": mism_special,
            "bound_scale_f32": float(scale.max()), "bound_scale_f32_at": float(xs[int(np.argmax(scale))]),
            "max_abs": float(ab[i_ab]), "max_abs_at": float(xs[i_ab]),
            "max_rel": float(rel[i_rel]), "max_rel_at": float(xs[i_rel]),
            "max_ulp": float(ulp[i_ulp]), "max_ulp_at": float(xs[i_ulp])}


def measure() -> dict:
    import cupy
    from simt_sim.calibrate.record import device_name
    out = {"what": "largest |simulated - hardware| of each MUFU-based PTX approximation, float32 inputs "
                   f"swept every {STRIDE}th bit pattern of the domain (tools/mufu_accuracy.py)",
           "device": device_name(cupy),
           "recorded": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "functions": {}}
    for name in FUNCS:
        x = inputs(name)
        out["functions"][name] = differences(x, simulated(name, x), on_gpu(name, x))
    return out


def write_atomic(path: Path, obj) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpu", action="store_true", help="measure on the GPU (cupy) and write --out")
    ap.add_argument("--out", type=Path, default=RECORDED)
    a = ap.parse_args(argv)
    if a.gpu:
        sys.path.insert(0, str(ROOT))
        rec = measure()
        write_atomic(a.out, rec)
    else:
        rec = json.loads(RECORDED.read_text())
    print(f"{rec['device']}, {rec['recorded']}")
    print(f"{'instruction':22s} {'inputs':>9s} {'equal':>9s} {'max ulp':>9s} {'max rel':>10s} {'at x':>12s} "
          f"{'x f32 bound':>11s}")
    for name, r in rec["functions"].items():
        print(f"{name:22s} {r['inputs']:9d} {r['equal']:9d} {r['max_ulp']:9.1f} {r['max_rel']:10.3g} "
              f"{r['max_rel_at']:12.6g} {r['bound_scale_f32']:11.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
