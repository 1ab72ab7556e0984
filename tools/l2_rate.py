#!/usr/bin/env python
"""How fast one SM takes lines from L2, on the GPU (--gpu) and in the simulator (default).
tools/kernels/l2_rate.cu: every warp of a block loads 32 lines with ld.global.cg, 8 independent
loads at a time; a first launch brings the lines into L2, the second is timed (all L2 hits, none
in L1).  1 to 32 warps a block, one block or one on every SM (132).  Per set, the median over 5
timed launches of: lines per cycle per SM (a block's lines over its span, first warp's start to
last warp's end, the mean over the blocks) and a warp's mean cycles from its first load to its
last line.  The SGEMM's tile loop staging from L2 with one warp per sub-partition is 11% short in
the model (probe tile_loop): is it how fast an SM's lines come back?

    python tools/l2_rate.py --gpu --out programs/workloads/w-matmul-pipeline/reference/h200-l2-rate.json
    python tools/l2_rate.py            # the simulator beside the recording
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import beside, gpu_name, model_probe_parser, recorded, write_result  # noqa: E402
PTX = ROOT / "tools" / "kernels" / "l2_rate.ptx"
RECORDED = ROOT / "programs" / "workloads" / "w-matmul-pipeline" / "reference" / "h200-l2-rate.json"
WARPS, GRIDS, STEPS = (1, 4, 8, 16, 32), (1, 132), 4
LINES = 8 * STEPS                     # per warp


def figures(times: np.ndarray, grid: int, warps: int) -> list[float]:
    t = times.reshape(-1, 32, 2)[:grid, :warps].astype(np.int64)
    span = ((t[:, :, 1].max(axis=1) - t[:, :, 0].min(axis=1)) % (1 << 32)).astype(float)
    own = ((t[:, :, 1] - t[:, :, 0]) % (1 << 32)).astype(float)
    return [round(float(np.mean(warps * LINES / span)), 4), round(float(own.mean()), 1)]


def buffers(grid: int, warps: int) -> dict:
    return {"x": np.ones(grid * warps * LINES * 32, np.float32), "times": np.zeros(64 * grid, np.uint32),
            "out": np.zeros(grid * 32 * warps, np.float32)}


def measure() -> dict:
    import cupy as cp
    f = cp.RawModule(path=str(PTX)).get_function("k_l2_rate")
    out = {}
    for grid in GRIDS:
        for warps in WARPS:
            b = {k: cp.asarray(v) for k, v in buffers(grid, warps).items()}
            args = (b["x"], b["times"], b["out"], np.int32(STEPS))
            runs = []
            for i in range(6):
                f((grid,), (32 * warps,), args)
                cp.cuda.runtime.deviceSynchronize()
                if i:
                    runs.append(figures(b["times"].get(), grid, warps))
            out[f"{grid} / {warps}"] = np.median(np.array(runs), axis=0).round(4).tolist()
            print(grid, warps, out[f"{grid} / {warps}"], flush=True)
    return {"tool": os.path.basename(__file__), "device": gpu_name(), "figures": out}


def simulated(grid: int, warps: int, overrides: tuple[str, ...] = ()) -> list[float]:
    """The second of two launches on the H100 config (the first brings the lines into L2)."""
    import simt_sim
    prog = simt_sim.load_program(str(PTX), "k_l2_rate", isa="sass")
    cfg = simt_sim.load_config("h100", list(overrides))
    launch = simt_sim.Launch(prog, grid, 32 * warps, ["x", "times", "out", STEPS])
    res = simt_sim.simulate([launch, launch], buffers(grid, warps), cfg)
    return figures(res.outputs["times"], grid, warps)


def main() -> int:
    args = model_probe_parser(__doc__).parse_args()
    if args.gpu:
        write_result(measure(), args.out)
        return 0
    rec = recorded(RECORDED, "figures")
    print("blocks / warps   lines per cycle per SM, a warp's cycles for its 32 lines: GPU | model")
    for grid in GRIDS:
        for warps in WARPS:
            key = f"{grid} / {warps}"
            print(f"{key:<15} " + beside(rec.get(key, []), simulated(grid, warps, tuple(args.set)), "9.3f", 22))
    return 0


if __name__ == "__main__":
    sys.exit(main())
