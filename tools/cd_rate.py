#!/usr/bin/env python
"""How long a block of the fusion workloads' CUDA-core kernel runs with 1, 2 or 4 blocks on each SM:
on the GPU (--gpu) and in the simulator (default).  w-fusion-cd-only's cd_kernel (its PTX and the
committed cubin of programs/workloads/w-fusion-cd-only) is launched with 132, 264 or 528 blocks of 128 threads
(one, two or four warps per sub-partition; the workload runs 528), each block one unit of the
divergent loop.  Printed: the blocks' mean and longest clock span (start at entry, end after the
block's closing barrier), and the mean span of each launch wave (blocks 0-131, 132-263, ...: one
block of each SM, the first to start on it first).

    python tools/cd_rate.py --gpu --out programs/workloads/w-fusion-cd-only/reference/h100-cd-rate.json
    python tools/cd_rate.py             # the simulator beside the recorded figures
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import gpu_medians, gpu_name, model_probe_parser, write_result  # noqa: E402  (tools/, beside this file)
PROGRAM = ROOT / "programs" / "workloads" / "w-fusion-cd-only"
PTX = PROGRAM / "kernel.ptx"
RECORDED = PROGRAM / "reference" / "h100-cd-rate.json"
THREADS, UNITS, CLK_FIRST, SMS = 128, 528, 528, 132
GRIDS = {"1 block an SM": 132, "2 blocks an SM": 264, "4 blocks an SM": 528}


def inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(4)
    return {"cd_in": rng.integers(0, 2**32, UNITS * THREADS, dtype=np.uint32),
            "cd_out": np.zeros(UNITS * THREADS, np.uint32), "clk": np.zeros(4 * UNITS, np.int64)}


def spans(clk: np.ndarray, grid: int) -> list[float]:
    """[mean, longest] block span, then each launch wave's mean span."""
    c = clk.reshape(-1, 2)[CLK_FIRST:CLK_FIRST + grid]
    s = (c[:, 1] - c[:, 0]).astype(np.float64)
    waves = s.reshape(-1, SMS).mean(axis=1)
    return [round(float(s.mean()), 1), float(s.max())] + [round(float(w), 1) for w in waves]


def launch(cp, f, name: str, grid: int) -> list[float]:
    b = {k: cp.asarray(v) for k, v in inputs().items()}
    f((grid,), (THREADS,), (b["cd_in"], b["cd_out"], b["clk"], np.int32(CLK_FIRST)))
    cp.cuda.runtime.deviceSynchronize()
    return spans(b["clk"].get(), grid)


def gpu_spans() -> dict:
    """Median over 8 launches (after one that warms the caches) of each grid's spans."""
    return {k.split(" / ")[1]: v for k, v in gpu_medians(PTX, ["cd_kernel"], GRIDS, launch, 1).items()}


def simulated(grid: int, overrides=()) -> list[float]:
    import simt_sim
    prog = simt_sim.load_program(str(PTX), "cd_kernel", isa="sass")
    cfg = simt_sim.load_config("h100", list(overrides))
    bufs = inputs()
    res = simt_sim.simulate([simt_sim.Launch(prog, grid, THREADS, ["cd_in", "cd_out", "clk", CLK_FIRST])], bufs, cfg)
    return spans(res.outputs["clk"], grid)


def main() -> int:
    ap = model_probe_parser(__doc__)
    args = ap.parse_args()
    if args.gpu:
        write_result({"tool": os.path.basename(__file__), "device": gpu_name(), "grids": GRIDS,
                      "block_span_mean_max_waves": gpu_spans()}, args.out)
        return 0
    hw = json.loads(RECORDED.read_text())["block_span_mean_max_waves"] if RECORDED.exists() else {}
    print(f"{'blocks':<16} {'mean span: H100 | model':>26} {'longest: H100 | model':>26}   each wave's mean: H100 | model")
    for label, grid in GRIDS.items():
        m = simulated(grid, tuple(args.set))
        h = hw.get(label, [float("nan")] * len(m))
        waves = "  ".join(f"{a:.0f} | {b:.0f}" for a, b in zip(h[2:], m[2:]))
        print(f"{label:<16} {h[0]:>12.1f} | {m[0]:<11.1f} {h[1]:>12.1f} | {m[1]:<11.1f}   {waves}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
