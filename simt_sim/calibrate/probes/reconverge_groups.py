"""What a convergence barrier costs by the number of thread groups that reach its BSYNC apart.
tools/kernels/reconverge_groups.cu's k_exit_groups runs 128 iterations of a chain of FFMAs whose
lanes leave in G groups, one after each of the chain's first G steps (`split`: G arrivals at the
chain's BSYNC, each a divergent branch, an arrival and a switch back to the lanes still in the
chain), or all together after step G (`together`: the same instructions with one arrival).
ptxas 13.0 makes each step ISETP, FFMA, @!P BRA to the BSYNC; the loop adds BSSY, BSYNC, FMUL and
the loop's BRA.  The figures: cycles per warp-iteration on the busiest sub-partition per (G, mode);
split - together is what the G - 1 further arrivals cost (sass.group_switch_latency each)."""
from __future__ import annotations

import numpy as np

from simt_sim.calibrate.probes.base import span_per_warp_step

STEPS = 128
GROUPS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32)
MODES = {"split": -1, "together": 0}
MEANING = "cycles per warp-iteration when a chain's lanes reach its BSYNC in 1-32 groups, apart or together"
KERNELS = "reconverge_groups"
FUNCTIONS = {"k_exit_groups": "k_exit_groups"}
SETS = {"1 warp": 32, "1/SMSP": 128, "4/SMSP": 512, "8/SMSP": 1024}
CASES = [(g, mode) for g in GROUPS for mode in MODES]
FIGURES, FIGURE_NAMES = "cycles_per_warp_iteration", tuple(f"G {g} {mode}" for g, mode in CASES)
RECORDING = "h200/reconverge_groups.json"
HEADER = {"steps": STEPS, "groups": GROUPS, "modes": list(MODES)}
KEYS = ("sass.group_switch_latency",)
FIT = {"sass.group_switch_latency": (10, 16, 22)}
FIT_ROWS = ("k_exit_groups / 1 warp",)
BUFFERS = {"clk": ("int64", 2 * 32), "out": ("float32", 1024)}


def launch_of(name: str, threads: int, case):
    groups, mode = case
    return threads, ["clk", "out", np.int32(groups), np.int32(MODES[mode]), np.float32(0.999), np.float32(0.001)]


def figures(out, name: str, threads: int) -> list[float]:
    return span_per_warp_step(out["clk"], threads, STEPS)
