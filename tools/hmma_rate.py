#!/usr/bin/env python
"""How many HMMA.16816 a sub-partition issues per cycle: on the GPU (--gpu) and in the simulator
(default).  Every running warp issues 128 rounds of 1, 4 or 8 independent mma.sync m16n8k16 (f16
inputs, f32 or f16 accumulators; tools/kernels/hmma_rate.cu, its PTX and the committed cubin
beside it).  One block of 32 warps, of which 1, 2 or 4 on one sub-partition, 4 on four, 16 or 32
run: cycles per HMMA of one warp and of the busiest sub-partition (its warps' span over their
HMMAs).

    python tools/hmma_rate.py --gpu --out programs/t-mio-w1/reference/h100-hmma-rate.json
    python tools/hmma_rate.py           # the simulator's figures beside the recorded ones
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import gpu_medians, gpu_name, model_probe_parser, recorded, simulate_block, write_result  # noqa: E402  (tools/, beside this file)
PTX = ROOT / "tools" / "kernels" / "hmma_rate.ptx"
RECORDED = ROOT / "programs" / "t-mio-w1" / "reference" / "h100-hmma-rate.json"
ITERS = 128
WARPS = 32
KERNELS = {"k_f32_1": ("HMMA.16816.F32, 1 chain", 1), "k_f32_4": ("HMMA.16816.F32, 4 chains", 4),
           "k_f32_8": ("HMMA.16816.F32, 8 chains", 8), "k_f16_1": ("HMMA.16816.F16, 1 chain", 1),
           "k_f16_4": ("HMMA.16816.F16, 4 chains", 4), "k_f16_8": ("HMMA.16816.F16, 8 chains", 8)}
ACTIVE = {"1 warp": 0x1, "2 warps, 1 sub-partition": 0x11, "4 warps, 1 sub-partition": 0x1111,
          "4 warps, 4 sub-partitions": 0xF, "16 warps": 0xFFFF, "32 warps": 0xFFFFFFFF}


def cycles_per_hmma(clk: np.ndarray, name: str, active: int) -> list[float]:
    """A warp's mean cycles per HMMA, and the busiest sub-partition's (its warps' span over all
    their HMMAs)."""
    per_warp = ITERS * KERNELS[name][1]
    warps = [w for w in range(WARPS) if (active >> w) & 1]
    c = clk.reshape(WARPS, 2).astype(np.int64)
    spans = (c[warps, 1] - c[warps, 0]) % (1 << 32)
    sp0 = [w for w in warps if w % 4 == 0]
    sub = c[sp0]
    sp_span = float(((sub[:, 1] - sub[:, 0].min()) % (1 << 32)).max())
    return [round(float(spans.mean()) / per_warp, 2), round(sp_span / (per_warp * len(sp0)), 2)]


def loop(cp, f, name: str, active: int) -> list[float]:
    clk, out = cp.zeros(2 * WARPS, cp.uint32), cp.zeros(WARPS * 32, cp.float32)
    f((1,), (WARPS * 32,), (clk, out, np.uint32(active)))
    cp.cuda.runtime.deviceSynchronize()
    return cycles_per_hmma(clk.get(), name, active)


def simulated(name: str, active: int, overrides: tuple[str, ...] = ()) -> list[float]:
    bufs = {"clk": np.zeros(2 * WARPS, np.uint32), "out": np.zeros(WARPS * 32, np.float32)}
    res = simulate_block(PTX, name, WARPS * 32, ["clk", "out", active], bufs, overrides)
    return cycles_per_hmma(res.outputs["clk"], name, active)


def main() -> int:
    args = model_probe_parser(__doc__).parse_args()
    if args.gpu:
        write_result({"tool": os.path.basename(__file__), "device": gpu_name(), "iterations": ITERS,
                      "kernels": {k: v[0] for k, v in KERNELS.items()}, "active": ACTIVE,
                      "cycles_per_hmma": gpu_medians(PTX, KERNELS, ACTIVE, loop, 2)}, args.out)
        return 0
    rec = recorded(RECORDED, "cycles_per_hmma")
    print(f"{'kernel':<26} {'running warps':<28} cycles per HMMA (a warp's, sub-partition 0's): H100 | model")
    for name, (what, _) in KERNELS.items():
        for label, active in ACTIVE.items():
            hw = " ".join(f"{v:6.2f}" for v in rec.get(f"{name} / {label}", []))
            model = " ".join(f"{v:6.2f}" for v in simulated(name, active, tuple(args.set)))
            print(f"{what:<26} {label:<28} {hw:>13} | {model}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
