#!/usr/bin/env python
"""What a warp's stores, FFMAs and shared loads cost while other warps of its sub-partition run
tensor-core HMMAs: on the GPU (--gpu) and in the simulator (default).  Warp 0 runs 64 steps of
one kind of work (tools/kernels/hmma_beside.cu, its PTX and the committed cubin beside it) while
warps 4, 8 and 12 run nothing, HMMA.16816 with f32 or f16 accumulators (4 chains a warp), HMMAs
with a zero accumulator (fewer registers to read), or FFMAs.  Printed: warp 0's cycles per step
and the neighbours' cycles per HMMA (or FFMA) of the sub-partition.

    python tools/hmma_beside.py --gpu --out programs/t-mio-w1/reference/h100-hmma-beside.json
    python tools/hmma_beside.py           # the simulator beside the recorded figures
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import gpu_medians, gpu_name, model_probe_parser, recorded, simulate_block, write_result  # noqa: E402  (tools/, beside this file)
PTX = ROOT / "tools" / "kernels" / "hmma_beside.ptx"
RECORDED = ROOT / "programs" / "t-mio-w1" / "reference" / "h100-hmma-beside.json"
STEPS, BUSY_ITERS, THREADS = 64, 160, 512
WORK = {"stg32": "4 STG.32", "stg64": "4 STG.64", "stg128": "4 STG.128", "stg64x1": "1 STG.64",
        "sts32": "4 STS.32", "sts64": "4 STS.64", "sts128": "4 STS.128", "sts64x1": "1 STS.64",
        "ffmadep": "8 dependent FFMA", "ffmaind": "8 FFMA, 3 registers", "ldsdep": "4 dependent LDS"}
BUSY = {"alone": "nothing", "hmma": "HMMA f32", "hmmaz": "HMMA C=0", "hmma16": "HMMA f16", "ffma": "FFMA"}
KERNELS = {f"k_{w}_{b}": f"{w} / {b}" for w in WORK for b in BUSY}
KERNELS.update({f"k_idle_{b}": f"idle / {b}" for b in BUSY if b != "alone"})
ACTIVE = {"block": 0}
C, D = np.float32(0.5), np.float32(1.0)


def figures(name: str, times: np.ndarray) -> list[float]:
    """[warp 0's cycles per step, the busy warps' cycles per HMMA (FFMA) of the sub-partition]
    (nan where that side does not run)."""
    t = times.astype(np.int64).reshape(4, 2)
    step = float((t[0, 1] - t[0, 0]) % (1 << 32)) / STEPS if not name.startswith("k_idle") else float("nan")
    per_busy = 3 * BUSY_ITERS * (32 if name.endswith("_ffma") else 4)
    busy = float(t[1:, 1].max() - t[1:, 0].min()) / per_busy if not name.endswith("_alone") else float("nan")
    return [round(step, 2), round(busy, 3)]


def launch(cp, f, name: str, active: int) -> list[float]:
    times, out = cp.zeros(8, cp.uint32), cp.zeros(8192, cp.float32)
    f((1,), (THREADS,), (times, out, C, D))
    cp.cuda.runtime.deviceSynchronize()
    return figures(name, times.get())


def simulated(name: str, overrides: tuple[str, ...] = ()) -> list[float]:
    bufs = {"times": np.zeros(8, np.uint32), "out": np.zeros(8192, np.float32)}
    res = simulate_block(PTX, name, THREADS, ["times", "out", C, D], bufs, overrides)
    return figures(name, res.outputs["times"])


def main() -> int:
    args = model_probe_parser(__doc__).parse_args()
    if args.gpu:
        write_result({"tool": os.path.basename(__file__), "device": gpu_name(), "steps": STEPS, "kernels": KERNELS,
                      "figures": gpu_medians(PTX, KERNELS, ACTIVE, launch, 3)}, args.out)
        return 0
    rec = recorded(RECORDED, "figures")
    print(f"{'warp 0 runs / neighbours run':<34} warp 0 cycles per step, H100 | model;  neighbours' cycles per op, H100 | model")
    for name in KERNELS:
        w, b = name[2:].rsplit("_", 1)
        hw = rec.get(f"{name} / block", [float("nan")] * 2)
        model = simulated(name, tuple(args.set))
        label = f"{WORK.get(w, 'idle')} beside {BUSY[b]}"
        print(f"{label:<34} {hw[0]:7.1f} | {model[0]:7.1f}      {hw[1]:7.2f} | {model[1]:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
