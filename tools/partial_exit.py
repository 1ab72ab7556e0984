#!/usr/bin/env python
"""What the lanes that go on pay when the rest of their warp exits: on the GPU (--gpu) and in the
simulator (default).  tools/kernels/partial_exit.cu's k_partial_exit (its PTX and the committed
cubin beside it): every lane stores `stores` words to global memory (a line per warp each), runs
`delay` iterations of a dependent FFMA loop, reads the clock, and then the lanes at or above `keep`
exit (`@P0 EXIT`) while the others go on to a second clock read.  ptxas 13.0 puts ULDC, ISETP
(stall count 13) and the EXIT (5) between the two reads.

Figures: the mean over warps of the cycles between the two clock reads (keep 32: nobody exits, the
EXIT predicated off), and of the cycles from the first clock read to the one before the exit (the
stores and the delay loop), for one block of 1, 16 or 32 warps.

    python tools/partial_exit.py --gpu --out programs/t-diverge-w8/reference/h100-partial-exit.json
    python tools/partial_exit.py            # the simulator beside the recorded figures
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import gpu_medians, gpu_name, model_probe_parser, recorded, simulate_block, write_result  # noqa: E402  (tools/, beside this file)
PTX = ROOT / "tools" / "kernels" / "partial_exit.ptx"
RECORDED = ROOT / "programs" / "t-diverge-w8" / "reference" / "h100-partial-exit.json"
# label: (stores, delay, keep)
CASES = {"no stores, none exit": (0, 0, 32), "no stores, 31 exit": (0, 0, 1), "no stores, 16 exit": (0, 0, 16),
         "1 store, none exit": (1, 0, 32), "1 store, 31 exit": (1, 0, 1),
         "4 stores, none exit": (4, 0, 32), "4 stores, 31 exit": (4, 0, 1),
         "16 stores, none exit": (16, 0, 32), "16 stores, 31 exit": (16, 0, 1),
         "4 stores, delay 64, none exit": (4, 64, 32), "4 stores, delay 64, 31 exit": (4, 64, 1)}
WARP_SETS = {"1 warp": 32, "16 warps": 512, "32 warps": 1024}
A, B = np.float32(0.999), np.float32(0.001)


def args_for(clk, out, case: str) -> list:
    stores, delay, keep = CASES[case]
    return [clk, out, np.int32(stores), np.int32(delay), np.int32(keep), A, B]


def figures(clk, threads: int) -> list[float]:
    """[mean cycles across the exit, mean cycles of the stores and delay] over the block's warps."""
    c = np.asarray(clk)[: 3 * (threads // 32)].reshape(-1, 3).astype(np.int64)
    return [round(float((c[:, 2] - c[:, 1]).mean()), 2), round(float((c[:, 1] - c[:, 0]).mean()), 2)]


def buffers() -> dict:
    return {"clk": np.zeros(96, np.int64), "out": np.zeros(16 * 1024, np.float32)}


def launch(cp, f, name: str, threads: int) -> list[float]:
    row = []
    for case in CASES:
        b = {k: cp.asarray(v) for k, v in buffers().items()}
        f((1,), (threads,), tuple(args_for(b["clk"], b["out"], case)))
        cp.cuda.runtime.deviceSynchronize()
        row += figures(b["clk"].get(), threads)
    return row


def simulated(threads: int, overrides=()) -> list[float]:
    row = []
    for case in CASES:
        res = simulate_block(PTX, "k_partial_exit", threads, args_for("clk", "out", case), buffers(), overrides)
        row += figures(res.outputs["clk"], threads)
    return row


def main() -> int:
    ap = model_probe_parser(__doc__)
    args = ap.parse_args()
    if args.gpu:
        runs = gpu_medians(PTX, ["k_partial_exit"], WARP_SETS, launch, 2)
        write_result({"tool": os.path.basename(__file__), "device": gpu_name(), "cases": CASES,
                      "exit_and_before_cycles": runs}, args.out)
        return 0
    hw = recorded(RECORDED, "exit_and_before_cycles")
    print("mean cycles a warp, H100 | model: across the exit (two clock reads around it) and before it (stores, delay)")
    for label, threads in WARP_SETS.items():
        m = simulated(threads, tuple(args.set))
        h = hw.get(f"k_partial_exit / {label}", [float("nan")] * len(m))
        for i, case in enumerate(CASES):
            print(f"{label:<9} {case:<32} {h[2 * i]:8.1f} | {m[2 * i]:<8.1f} {h[2 * i + 1]:8.1f} | {m[2 * i + 1]:<8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
