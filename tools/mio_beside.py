#!/usr/bin/env python
"""What a warp's shared stores and special-register reads cost while the other warps of its
sub-partition keep its MIO busy: on the GPU (--gpu) and in the simulator (default).  Warp 0 runs a
loop whose STS.32's data the next instruction overwrites, or a chain of S2R %warpid
(tools/kernels/mio_beside.cu, its PTX and the committed cubin beside it), while warps 4, 8 and 12
run nothing, S2R, LDSM.x4, L1-hit LDG, STS.32, STG.64 or HMMA.16816 loops, or all 16 warps run
warp 0's loop.  The predictor's tile (tools/tc_tile_rate.py) waits far longer for its hidden-layer
stores' read barriers with 4 warps per sub-partition than with one.  Printed: warp 0's cycles per
step, and the busy warps' (their span over their iterations).

    python tools/mio_beside.py --gpu --out programs/t-mio-w1/reference/h100-mio-beside.json
    python tools/mio_beside.py           # the simulator beside the recorded figures
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import gpu_medians, gpu_name, model_probe_parser, recorded, simulate_block, write_result  # noqa: E402  (tools/, beside this file)
PTX = ROOT / "tools" / "kernels" / "mio_beside.ptx"
RECORDED = ROOT / "programs" / "t-mio-w1" / "reference" / "h100-mio-beside.json"
STEPS, BUSY_ITERS, THREADS = 64, 96, 512
WORK = {"stschain": "8 STS.32, each data overwritten", "s2rchain": "8 dependent S2R"}
BUSY = {"alone": "nothing", "s2r": "S2R", "ldsm": "LDSM.x4", "ldg": "LDG (L1 hits)", "sts": "STS.32",
        "stg": "STG.64", "hmma": "HMMA f16", "all": "all 16 warps the same", "mix": "the tile's MIO mix",
        "mixhmma": "the mix + HMMA f32"}
KERNELS = {f"k_{w}_{b}": f"{w} / {b}" for w in WORK for b in BUSY}
ACTIVE = {"block": 0}


def figures(name: str, times: np.ndarray) -> list[float]:
    """[warp 0's cycles per step, the busy warps' cycles per iteration (span of warps 4, 8, 12, or
    of all 16 warps' steps for _all)]."""
    t = times.astype(np.int64).reshape(-1, 2)
    step = float((t[0, 1] - t[0, 0]) % (1 << 32)) / STEPS
    if name.endswith("_alone"):
        return [round(step, 2), float("nan")]
    rows, per = (slice(0, 16), STEPS) if name.endswith("_all") else ([4, 8, 12], BUSY_ITERS)
    span = float(t[rows, 1].max() - t[rows, 0].min()) / per
    return [round(step, 2), round(span, 2)]


def buffers() -> dict[str, np.ndarray]:
    return {"times": np.zeros(32, np.uint32), "g": np.arange(4096, dtype=np.uint32),
            "gout": np.zeros(4096 * 17, np.uint32)}


def launch(cp, f, name: str, active: int) -> list[float]:
    bufs = {k: cp.asarray(v) for k, v in buffers().items()}
    f((1,), (THREADS,), (bufs["times"], bufs["g"], bufs["gout"]))
    cp.cuda.runtime.deviceSynchronize()
    return figures(name, bufs["times"].get())


def simulated(name: str, overrides: tuple[str, ...] = ()) -> list[float]:
    res = simulate_block(PTX, name, THREADS, ["times", "g", "gout"], buffers(), overrides)
    return figures(name, res.outputs["times"])


def main() -> int:
    args = model_probe_parser(__doc__).parse_args()
    if args.gpu:
        write_result({"tool": os.path.basename(__file__), "device": gpu_name(), "steps": STEPS, "kernels": KERNELS,
                      "figures": gpu_medians(PTX, KERNELS, ACTIVE, launch, 2)}, args.out)
        return 0
    rec = recorded(RECORDED, "figures")
    print(f"{'warp 0 runs':<34}{'beside':<24} warp 0 per step H100 | model;  busy warps per iteration H100 | model")
    for name in KERNELS:
        w, b = name[2:].rsplit("_", 1)
        hw = rec.get(f"{name} / block", [float("nan")] * 2)
        model = simulated(name, tuple(args.set))
        print(f"{WORK[w]:<34}{BUSY[b]:<24} {hw[0]:7.1f} | {model[0]:7.1f}      {hw[1]:7.1f} | {model[1]:7.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
