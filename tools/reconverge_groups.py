#!/usr/bin/env python
"""What a convergence barrier costs by the number of thread groups that reach its BSYNC apart: on
the GPU (--gpu) and in the simulator (default).  tools/kernels/reconverge_groups.cu's k_exit_groups
(its PTX and the committed cubin beside it) runs 128 iterations of a chain of FFMAs whose lanes
leave in G groups, one after each of the chain's first G steps (`split`: G arrivals at the chain's
BSYNC, each a divergent branch, an arrival and a switch back to the lanes still in the chain), or
all together after step G ("together": the same instructions with one arrival).  ptxas 13.0 makes
each step ISETP, FFMA, @!P BRA to the BSYNC; the loop adds BSSY, BSYNC, FMUL and the loop's BRA.

Figures: cycles per warp-iteration on the busiest sub-partition, for one warp alone and 1, 4 or 8
warps on each of the four sub-partitions.  `split - together` is what the G - 1 further arrivals
cost.

    python tools/reconverge_groups.py --gpu --out programs/t-diverge-w8/reference/h100-reconverge-groups.json
    python tools/reconverge_groups.py            # the simulator beside the recorded figures
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import gpu_medians, gpu_name, model_probe_parser, recorded, simulate_block, span_per_warp_step, write_result  # noqa: E402  (tools/, beside this file)
PTX = ROOT / "tools" / "kernels" / "reconverge_groups.ptx"
RECORDED = ROOT / "programs" / "t-diverge-w8" / "reference" / "h100-reconverge-groups.json"
STEPS = 128
GROUPS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32)
MODES = {"split": -1, "together": 0}
WARP_SETS = {"1 warp": 32, "1/SMSP": 128, "4/SMSP": 512, "8/SMSP": 1024}
A, B = np.float32(0.999), np.float32(0.001)


def args_for(clk, out, groups: int, mode: str) -> list:
    return [clk, out, np.int32(groups), np.int32(MODES[mode]), A, B]


def buffers() -> dict:
    return {"clk": np.zeros(2 * 32, np.int64), "out": np.zeros(1024, np.float32)}


def launch(cp, f, name: str, threads: int) -> list[float]:
    """Cycles per warp-iteration of every (groups, mode), in the order of GROUPS x MODES."""
    row = []
    for g in GROUPS:
        for mode in MODES:
            b = {k: cp.asarray(v) for k, v in buffers().items()}
            f((1,), (threads,), tuple(args_for(b["clk"], b["out"], g, mode)))
            cp.cuda.runtime.deviceSynchronize()
            row += span_per_warp_step(b["clk"].get(), threads, STEPS)
    return row


def simulated(threads: int, overrides=()) -> list[float]:
    row = []
    for g in GROUPS:
        for mode in MODES:
            res = simulate_block(PTX, "k_exit_groups", threads, args_for("clk", "out", g, mode), buffers(), overrides)
            row += span_per_warp_step(res.outputs["clk"], threads, STEPS)
    return row


def main() -> int:
    ap = model_probe_parser(__doc__)
    args = ap.parse_args()
    if args.gpu:
        runs = gpu_medians(PTX, ["k_exit_groups"], WARP_SETS, launch, 2)
        write_result({"tool": os.path.basename(__file__), "device": gpu_name(), "steps": STEPS, "groups": GROUPS,
                      "modes": list(MODES), "cycles_per_warp_iteration": runs}, args.out)
        return 0
    hw = recorded(RECORDED, "cycles_per_warp_iteration")
    print("cycles per warp-iteration, H100 | model; split - together: what the further arrivals cost")
    print(f"{'warps':<8} {'G':>3} {'split':>17} {'together':>17} {'split - together':>19}")
    for label, threads in WARP_SETS.items():
        m = simulated(threads, tuple(args.set))
        h = hw.get(f"k_exit_groups / {label}", [float("nan")] * len(m))
        for i, g in enumerate(GROUPS):
            hs, ht, ms, mt = h[2 * i], h[2 * i + 1], m[2 * i], m[2 * i + 1]
            print(f"{label:<8} {g:>3} {hs:8.1f} | {ms:<6.1f} {ht:8.1f} | {mt:<6.1f} {hs - ht:9.1f} | {ms - mt:<6.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
