#!/usr/bin/env python
"""DRAM refreshes under load, on the GPU (--gpu): does a line stray above its own latency as often
when every SM loads lines at once as when one SM does (tools/dram_lines.py: 10-14% of the loads,
by 100-550 cycles)?  tools/kernels/dram_load.cu: a grid of 1, 16, 66 or 132 blocks (one an SM),
each block's 32 warps loading one line each, 1 KiB apart, the blocks' lines 1 MiB apart; L2 pushed
out by a 256 MiB read before each of 9 repeats of the same lines, at 4 bases.  Per grid: the share
of loads more than 150 cycles above their line's median over the repeats, the mean load, and the
mean over the blocks of their slowest line less their median line.

The model (default) runs each grid once: its lines' latencies differ only by the refreshes and the
load (memory.dram.latency_spread_ns is off), so a stray is counted against the launch's median.

    python tools/dram_load.py --gpu --out programs/workloads/w-matmul-plain/reference/h100-dram-load.json
    python tools/dram_load.py           # the simulator beside the recorded figures
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import beside, gpu_name, model_probe_parser, recorded, write_result  # noqa: E402
PTX = ROOT / "tools" / "kernels" / "dram_load.ptx"
RECORDED = ROOT / "programs" / "workloads" / "w-matmul-plain" / "reference" / "h100-dram-load.json"
GRIDS, WARPS, REPEATS, BASES = (1, 16, 66, 132), 32, 9, 4
REGION = 1 << 18                        # floats between blocks' first lines (1 MiB)
THRESHOLD = 150                         # cycles above a line's median counted as a stray (dram_lines --fit)


def latencies(times: np.ndarray, grid: int) -> np.ndarray:
    t = times.reshape(-1, 32, 2)[:grid].astype(np.int64)
    return (t[:, :, 1] - t[:, :, 0]) % (1 << 32)        # [block, warp]


def figures(reps: np.ndarray, med=None) -> list[float]:
    """reps [repeat, block, warp] -> [stray share, mean load, mean (slowest - median line) per block];
    a stray is a load more than THRESHOLD above `med` (default: its line's median over the repeats)."""
    med = np.median(reps, axis=0) if med is None else med
    stray = float((reps - med > THRESHOLD).mean())
    tail = float((reps.max(axis=2) - np.median(reps, axis=2)).mean())
    return [round(stray, 4), round(float(reps.mean()), 1), round(tail, 1)]


def measure() -> dict:
    import cupy as cp
    f = cp.RawModule(path=str(PTX)).get_function("k_dram_load")
    x = cp.zeros((max(GRIDS) * REGION + BASES * (1 << 16)), cp.float32)
    times = cp.zeros(64 * max(GRIDS), cp.uint32)
    junk = cp.ones(1 << 26, cp.float32)
    out = {}
    for grid in GRIDS:
        rows = []
        for b in range(BASES):
            args = (x[b * (1 << 16):], times, np.uint64(REGION), np.int32(WARPS))
            reps = []
            for _ in range(REPEATS):
                float(junk.sum())
                f((grid,), (1024,), args)
                cp.cuda.runtime.deviceSynchronize()
                reps.append(latencies(times.get(), grid))
            rows.append(figures(np.array(reps)))
        out[str(grid)] = np.mean(np.array(rows), axis=0).round(4).tolist()
        print(grid, out[str(grid)], flush=True)
    return {"tool": os.path.basename(__file__), "device": gpu_name(), "figures": out}


def simulated(grid: int, overrides: tuple[str, ...] = ()) -> list[float]:
    """The model's figures for one launch of `grid` blocks on the H100 config, caches flushed."""
    import simt_sim
    prog = simt_sim.load_program(str(PTX), "k_dram_load", isa="sass")
    cfg = simt_sim.load_config("h100", ["host.caches_flushed=true", *overrides])
    bufs = {"x": np.zeros(grid * REGION, np.float32), "times": np.zeros(64 * grid, np.uint32)}
    res = simt_sim.simulate([simt_sim.Launch(prog, grid, 1024, ["x", "times", REGION, WARPS])], bufs, cfg)
    lat = latencies(res.outputs["times"], grid)[None]
    return figures(lat, np.median(lat))


def main() -> int:
    args = model_probe_parser(__doc__).parse_args()
    if args.gpu:
        write_result(measure(), args.out)
        return 0
    rec = recorded(RECORDED, "figures")
    print("blocks (one an SM)   strays, mean load, slowest less median line: H100 | model")
    for grid in GRIDS:
        print(f"{grid:>18}   " + beside(rec.get(str(grid), []), simulated(grid, tuple(args.set)), "8.3f", 27))
    return 0


if __name__ == "__main__":
    sys.exit(main())
