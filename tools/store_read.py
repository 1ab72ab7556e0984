#!/usr/bin/env python
"""When a queued store reads its data register: on the GPU (--gpu) and in the simulator (default).
Each step of a loop issues FILL 16-byte shared stores, a store of x (shared or global) and an FFMA
that overwrites x, so the FFMA waits for that store's read barrier (tools/kernels/store_read.cu,
its PTX and the committed cubin beside it).  If stores read their data at issue, a step costs what
the pipe takes for its stores; if at the pipe's entry, the FFMA also waits for the fill stores
ahead of x to pass, and the warp's next stores cannot overlap them.

    python tools/store_read.py --gpu --out programs/t-mio-w1/reference/h100-store-read.json
    python tools/store_read.py           # the simulator's cycles per step beside the recorded ones
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import gpu_medians, model_probe_parser, running_warp_steps, simulate_block, write_result  # noqa: E402  (tools/, beside this file)
PTX = ROOT / "tools" / "kernels" / "store_read.ptx"
RECORDED = ROOT / "programs" / "t-mio-w1" / "reference" / "h100-store-read.json"
STEPS = 64
WARPS = 16
KERNELS = {f"k_{x}_fill{n}": f"{n} STS.128, then {x.upper()}.32 of x" for x in ("sts", "stg") for n in (0, 1, 2, 4)}
ACTIVE = {"1 warp": 0x1, "4 warps, 4 sub-partitions": 0xF, "4 warps, 1 sub-partition": 0x1111}
OFFSETS = np.arange(8, dtype=np.uint32) * 512          # shared rows of 512 bytes
C, D = np.float32(0.5), np.float32(1.0)


def cycles_per_step(times: np.ndarray, active: int) -> list[float]:
    """Each running warp's cycles per step, from its two clock words."""
    return running_warp_steps(times, WARPS, active, STEPS).round(2).tolist()


def loop(cp, f, name: str, active: int) -> list[float]:
    """One launch of a store loop on the GPU: the running warps' cycles per step."""
    times, res = cp.zeros(2 * WARPS, cp.uint32), cp.zeros(WARPS * 64, cp.float32)
    f((1,), (WARPS * 32,), (times, res, cp.asarray(OFFSETS), np.uint32(active), C, D))
    cp.cuda.runtime.deviceSynchronize()
    return cycles_per_step(times.get(), active)


def simulated_steps(name: str, active: int, overrides: tuple[str, ...] = ()) -> list[float]:
    bufs = {"times": np.zeros(2 * WARPS, np.uint32), "out": np.zeros(WARPS * 64, np.float32), "offs": OFFSETS}
    res = simulate_block(PTX, name, WARPS * 32, ["times", "out", "offs", active, C, D], bufs, overrides)
    return cycles_per_step(res.outputs["times"], active)


def main() -> int:
    ap = model_probe_parser(__doc__)
    args = ap.parse_args()
    if args.gpu:
        write_result({"tool": os.path.basename(__file__), "steps": STEPS, "kernels": KERNELS, "active": ACTIVE,
                       "cycles_per_step": gpu_medians(PTX, KERNELS, ACTIVE, loop, 2)}, args.out)
        return 0
    rec = json.loads(RECORDED.read_text())["cycles_per_step"] if RECORDED.exists() else {}
    print(f"{'kernel':<14} {'':<28} cycles per step, each running warp: H100 | model")
    for name, what in KERNELS.items():
        for label, active in ACTIVE.items():
            hw = " ".join(f"{v:6.1f}" for v in rec.get(f"{name} / {label}", []))
            model = " ".join(f"{v:6.1f}" for v in simulated_steps(name, active, tuple(args.set)))
            print(f"{name:<14} {label:<28} {hw} | {model}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
