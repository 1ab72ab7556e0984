#!/usr/bin/env python
"""How a constant miss's wait grows with the SMs that miss at once, on the GPU (--gpu) and in the
simulator (default).  tools/kernels/constant_congestion.cu (its PTX and the committed cubin beside
it): blocks of four warps, one an SM, each warp reading a parameter word before its window and, in
the window, words of lines nothing has read: k_imc_one one line through its sub-partition's
immediate-constant cache (ULDC c[0x0][0x440]), k_ldc_one one through the SM's LDC cache (LDC
c[0x0][R+0x440]), k_mixed_three three lines (ULDC 0x440 and 0x4c0, LDC 0x480); k_imc_late as
k_imc_one with its window 2,000 cycles after the pre-read.  Grids of 1 to 132
blocks (264: two an SM); 9 launches, the first dropped (the code's own first fetch).  Figures: the mean window over
the grid's warps and the mean of each launch's longest, medians over the launches.

    python tools/constant_congestion.py --gpu --out programs/probes/launch-empty/reference/h100-constant-congestion.json
    python tools/constant_congestion.py            # the simulator beside the recorded figures
    python tools/constant_congestion.py --fit      # the sass.constants.gpu_misses that fits the recording
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import gpu_name, model_probe_parser, recorded, write_result  # noqa: E402  (tools/, beside this file)
PTX = ROOT / "tools" / "kernels" / "constant_congestion.ptx"
RECORDED = ROOT / "programs" / "probes" / "launch-empty" / "reference" / "h100-constant-congestion.json"
KERNELS = {"k_imc_one": "one line, immediate-constant cache",
           "k_imc_late": "the same, 2,000 cycles after the pre-read", "k_ldc_one": "one line, LDC cache",
           "k_mixed_three": "three lines: two immediate, one LDC"}
GRIDS = (1, 2, 4, 8, 16, 33, 66, 132, 264)
THREADS = 128
PAD_WORDS = 256
LAUNCHES = 9


def figures(clk: np.ndarray, blocks: int) -> dict:
    """{"mean", "longest", "sms"} of one launch's windows (clk rows: t0, t1, %smid, %warpid)."""
    rows = clk.reshape(-1, 4)[: blocks * THREADS // 32].astype(np.int64)
    w = rows[:, 1] - rows[:, 0]
    return {"mean": float(w.mean()), "longest": float(w.max()), "sms": int(len(np.unique(rows[:, 2])))}


def summary(runs: list[dict]) -> dict:
    return {k: round(float(np.median([r[k] for r in runs])), 1) for k in runs[0]}


def pad_argument():
    """The kernel's Pad (unsigned v[256]) as a numpy structured scalar, cupy's form of a struct."""
    return np.zeros(1, np.dtype([("v", np.uint32, PAD_WORDS)]))[0]


def buffers(blocks: int) -> tuple[np.ndarray, np.ndarray]:
    return np.zeros(blocks * THREADS + 65536, np.uint32), np.zeros(blocks * THREADS // 32 * 4, np.int64)


def measure_windows(tool: str, ptx, kernels: dict, grids, threads: int, buffers, figures) -> dict:
    """On the GPU, per kernel of `ptx` (each taking a buffer, the clock rows and a Pad) and grid:
    the medians over LAUNCHES launches, the first dropped, of figures(clock rows, blocks), each
    launch on fresh buffers(blocks)."""
    import cupy as cp
    mod = cp.RawModule(path=str(ptx))
    out = {}
    for name in kernels:
        f = mod.get_function(name)
        for blocks in grids:
            runs = []
            for _ in range(LAUNCHES):
                res, clk = (cp.asarray(b) for b in buffers(blocks))
                f((blocks,), (threads,), (res, clk, pad_argument()))
                cp.cuda.runtime.deviceSynchronize()
                runs.append(figures(clk.get(), blocks))
            out.setdefault(name, {})[str(blocks)] = summary(runs[1:])
            print(name, blocks, out[name][str(blocks)], flush=True)
    return {"tool": tool, "device": gpu_name(), "clock": "SM cycles at the plain launch's clock",
            "kernels": kernels, "windows": out}


def simulated_windows(ptx, name: str, blocks: int, threads: int, buffers, figures, overrides=()) -> dict:
    """The model's figures (measure_windows's) for a grid of `blocks`: the second of two launches,
    as the recording drops the first."""
    import simt_sim
    prog = simt_sim.load_program(str(ptx), name, isa="sass")
    cfg = simt_sim.load_config("h100", list(overrides))
    res, clk = buffers(blocks)
    launch = simt_sim.Launch(prog, blocks, threads, ["res", "clk", 0])
    out = simt_sim.simulate([launch, launch], {"res": res, "clk": clk}, cfg)
    return figures(out.outputs["clk"], blocks)


def print_windows(recording, kernels, grids, simulated, overrides) -> None:
    """Each kernel's and grid's recorded mean and longest window beside simulated(name, blocks,
    overrides)'s."""
    rec = recorded(recording, "windows")
    print(f"{'kernel':<14} {'blocks':>6}  {'mean H100':>9} {'model':>6}  {'longest H100':>12} {'model':>6}")
    for name in kernels:
        for blocks in grids:
            hw = rec.get(name, {}).get(str(blocks), {})
            sim = simulated(name, blocks, overrides)
            print(f"{name:<14} {blocks:>6}  {hw.get('mean', float('nan')):9.1f} {sim['mean']:6.1f}  "
                  f"{hw.get('longest', float('nan')):12.1f} {sim['longest']:6.1f}")


def measure() -> dict:
    return measure_windows(os.path.basename(__file__), PTX, KERNELS, GRIDS, THREADS, buffers, figures)


def simulated(name: str, blocks: int, overrides=()) -> dict:
    return simulated_windows(PTX, name, blocks, THREADS, buffers, figures, overrides)


FIT_MISSES = tuple(range(128, 513, 32))       # sass.constants.gpu_misses tried by --fit


def fit_error(misses: int) -> float:
    """The mean absolute difference of the model's mean windows from the recording's, every kernel
    and grid, with sass.constants.gpu_misses = misses."""
    rec = recorded(RECORDED, "windows")
    return float(np.mean([abs(simulated(name, blocks, (f"sass.constants.gpu_misses={misses}",))["mean"]
                              - rec[name][str(blocks)]["mean"]) for name in KERNELS for blocks in GRIDS]))


def fitted_misses() -> int:
    return min(FIT_MISSES, key=fit_error)


def main() -> int:
    ap = model_probe_parser(__doc__)
    ap.add_argument("--fit", action="store_true", help="print the sass.constants.gpu_misses that fits best")
    args = ap.parse_args()
    if args.gpu:
        write_result(measure(), args.out)
        return 0
    if args.fit:
        print(f"sass.constants.gpu_misses: {fitted_misses()}")
        return 0
    print_windows(RECORDED, KERNELS, GRIDS, simulated, tuple(args.set))
    return 0


if __name__ == "__main__":
    sys.exit(main())
