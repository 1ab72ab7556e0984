#!/usr/bin/env python
"""Two loads a warp from DRAM, on the GPU (--gpu) and in the simulator (default): w-matmul-plain's
warps each load a line of A and then one of B, and store B's value to shared memory before A's.
On the H100 that second store waits 4 warp-cycles (Nsight Compute, `calibrate.pc_stalls compare
w-matmul-plain`), in the model 41: there the first-issued load comes back after the second when a
DRAM refresh holds its line.  tools/kernels/load_pair.cu: a grid of 1 or 132 blocks of 32 warps,
each warp loading line a, then line b (ld.global.cg, 32 lanes, b 2 MiB after a), L2 pushed out
by a 256 MiB read before each of 9 repeats at 4 bases; k_load_pair_l2 and _l1 read b once before
(ld.global.cg / .ca), so that it hits L2 / L1 behind a's DRAM miss; _nc, _nc_l2 and _plain load
both lines as ld.global.nc (LDG.E.CONSTANT, b from DRAM or L2) and ld.global (LDG.E).  Per kernel and grid: the mean
cycles until b has arrived, the mean further wait for a, the share of warps whose a came more
than 100 cycles after b, and the share whose b came more than 150 cycles above the median b.

    python tools/load_pair.py --gpu --out programs/w-matmul-plain/reference/h100-load-pair.json
    python tools/load_pair.py           # the simulator beside the recorded figures
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import beside, gpu_name, model_probe_parser, recorded, write_result  # noqa: E402
PTX = ROOT / "tools" / "kernels" / "load_pair.ptx"
RECORDED = ROOT / "programs" / "w-matmul-plain" / "reference" / "h200-load-pair.json"
GRIDS, REPEATS, BASES = (1, 132), 9, 4
KERNELS = ("k_load_pair", "k_load_pair_l2", "k_load_pair_l1",      # b from DRAM, from L2, from L1
           "k_load_pair_nc", "k_load_pair_nc_l2", "k_load_pair_plain")   # as LDG.E.CONSTANT, LDG.E
REGION = 1 << 20                        # floats between blocks' first lines (4 MiB)
HALF = 1 << 19                          # floats from a warp's line a to its line b (2 MiB)
LATE, STRAY = 100, 150


def waits(times: np.ndarray, grid: int) -> np.ndarray:
    """[block, warp, (b's arrival, a's further wait)] in cycles."""
    t = times.reshape(-1, 32, 3)[:grid].astype(np.int64)
    return np.stack([(t[..., 1] - t[..., 0]) % (1 << 32), (t[..., 2] - t[..., 1]) % (1 << 32)], axis=-1)


def figures(w: np.ndarray) -> list[float]:
    """w [..., 2] -> [mean b arrival, mean further wait for a, share of a later than b by LATE,
    share of b more than STRAY above the median b]."""
    b, a = w[..., 0], w[..., 1]
    return [round(float(b.mean()), 1), round(float(a.mean()), 1), round(float((a > LATE).mean()), 4),
            round(float((b - np.median(b) > STRAY).mean()), 4)]


def measure() -> dict:
    import cupy as cp
    mod = cp.RawModule(path=str(PTX))
    x = cp.zeros(max(GRIDS) * REGION + BASES * (1 << 16), cp.float32)
    times = cp.zeros(3 * 32 * max(GRIDS), cp.uint32)
    junk = cp.ones(1 << 26, cp.float32)
    out = {}
    for name in KERNELS:
        f = mod.get_function(name)
        for grid in GRIDS:
            reps = []
            for base in range(BASES):
                args = (x[base * (1 << 16):], times, np.uint64(REGION), np.uint64(HALF))
                for _ in range(REPEATS):
                    float(junk.sum())
                    f((grid,), (1024,), args)
                    cp.cuda.runtime.deviceSynchronize()
                    reps.append(waits(times.get(), grid))
            out[f"{name} / {grid}"] = figures(np.array(reps))
            print(name, grid, out[f"{name} / {grid}"], flush=True)
    return {"tool": os.path.basename(__file__), "device": gpu_name(), "figures": out}


def simulated(name: str, grid: int, overrides: tuple[str, ...] = ()) -> list[float]:
    """The model's figures for one launch of `grid` blocks on the H100 config, caches flushed."""
    import simt_sim
    prog = simt_sim.load_program(str(PTX), name, isa="sass")
    cfg = simt_sim.load_config("h100", ["host.caches_flushed=true", *overrides])
    bufs = {"x": np.zeros(grid * REGION, np.float32), "times": np.zeros(3 * 32 * grid, np.uint32)}
    res = simt_sim.simulate([simt_sim.Launch(prog, grid, 1024, ["x", "times", REGION, HALF])], bufs, cfg)
    return figures(waits(res.outputs["times"], grid))


def main() -> int:
    args = model_probe_parser(__doc__).parse_args()
    if args.gpu:
        write_result(measure(), args.out)
        return 0
    rec = recorded(RECORDED, "figures")
    print("kernel / blocks        b's arrival, a's further wait, share of a > 100 after b, share of b strays: GPU | model")
    for name in KERNELS:
        for grid in GRIDS:
            key = f"{name} / {grid}"
            print(f"{key:<22} " + beside(rec.get(key, []), simulated(name, grid, tuple(args.set)), "8.3f", 40))
    return 0


if __name__ == "__main__":
    sys.exit(main())
