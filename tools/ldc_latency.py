#!/usr/bin/env python
"""How long an LDC takes where ptxas puts one: on the GPU (--gpu) and in the simulator (default).
One warp (tools/kernels/ldc_latency.cu, its PTX and the committed cubin beside it) reads the
clock, makes its first store through a pointer, and reads the clock again.  k_lc_first forms the
pointer in the window from a kernel parameter (LDC.64 c[0x0][0x210], IMAD.WIDE), as every kernel's
prologue does; k_lc_none forms it before the window; k_lc_indexed stores a __constant__ array's
element read at a register index (LOP3, LDC c[0x3][R], the kernel's first read of that bank).
Each window's difference from k_lc_none's holds the LDC's latency.

    python tools/ldc_latency.py --gpu --out programs/t-diverge-w8/reference/h100-ldc-latency.json
    python tools/ldc_latency.py            # the simulator beside the recorded figures
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import gpu_medians, model_probe_parser, recorded, simulate_block, write_result  # noqa: E402  (tools/, beside this file)
PTX = ROOT / "tools" / "kernels" / "ldc_latency.ptx"
RECORDED = ROOT / "programs" / "t-diverge-w8" / "reference" / "h100-ldc-latency.json"
KERNELS = {"k_lc_none": "the pointer formed before the window",
           "k_lc_first": "LDC.64 c[0x0][0x210] (a parameter), IMAD.WIDE",
           "k_lc_indexed": "LOP3, LDC c[0x3][R] (a __constant__ array's first read)"}


def launch(cp, f, name: str, _) -> list[float]:
    clk, out = cp.zeros(2, cp.int64), cp.zeros(64, cp.float32)
    f((1,), (32,), (out, clk))
    cp.cuda.runtime.deviceSynchronize()
    c = clk.get()
    return [float(c[1] - c[0])]


def simulated(name: str, overrides: tuple[str, ...] = ()) -> float:
    bufs = {"clk": np.zeros(2, np.int64), "out": np.zeros(64, np.float32)}
    c = simulate_block(PTX, name, 32, ["out", "clk"], bufs, overrides).outputs["clk"]
    return float(c[1] - c[0])


def main() -> int:
    ap = model_probe_parser(__doc__)
    args = ap.parse_args()
    if args.gpu:
        write_result({"tool": os.path.basename(__file__), "kernels": KERNELS,
                      "window": gpu_medians(PTX, KERNELS, {"1 warp": None}, launch, 1)}, args.out)
        return 0
    rec = recorded(RECORDED, "window")
    hw = {n: rec.get(f"{n} / 1 warp", [float("nan")])[0] for n in KERNELS}
    sim = {n: simulated(n, tuple(args.set)) for n in KERNELS}
    print(f"{'kernel':<14} {'window':<58} {'H100':>6} {'model':>6}   beyond k_lc_none: H100  model")
    for name, what in KERNELS.items():
        print(f"{name:<14} {what:<58} {hw[name]:6.0f} {sim[name]:6.0f}   {hw[name] - hw['k_lc_none']:>22.0f} "
              f"{sim[name] - sim['k_lc_none']:6.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
