"""How long a dependent LDS takes while other warps keep the LD/ST pipe busy.
tools/kernels/lds_loaded.cu: one warp per sub-partition chases 256 dependent LDS.32 (32 lanes,
conflict-free) while 0, 1, 3 or 7 more warps per sub-partition issue 512 iterations of 8
independent LDS.32.  The figures: the chasers' mean cycles per step, the loaders' mean cycles per
LDS (each over its own loop), and the SM's LDS per cycle over all the running warps' loops (the
median of 8 launches).  Up to 3 loaders the model matches; with 7 the H100's chase is shorter (not
modelled)."""
from __future__ import annotations

import numpy as np

WARPS, STEPS, ITERS = 32, 256, 512
MEANING = "cycles per dependent LDS.32 step while 0-7 warps per sub-partition issue LDS bursts; the SM's LDS rate"
KERNELS = "lds_loaded"
FUNCTIONS = {"k_lds_loaded": "chase beside loaders"}
SETS = {f"{n} loaders": n for n in (0, 1, 3, 7)}          # per sub-partition, beside its chaser
FIGURES = "figures"
FIGURE_NAMES = ("chase cycles per step", "loaders' cycles per LDS", "the SM's LDS per cycle")
RECORDING = "h200/lds_loaded.json"
CHECKS = {f"k_lds_loaded / {n} loaders": 0.05 for n in (0, 1)}
BUFFERS = {"clk": ("int64", 2 * WARPS), "out": ("uint32", WARPS * 32)}


def row_key(name: str, label: str) -> str:
    return str(SETS[label])


def launch_of(name: str, loaders: int):
    active = (1 << (4 + 4 * loaders)) - 1
    return WARPS * 32, ["clk", "out", np.uint32(active), np.int32(STEPS), np.int32(ITERS)]


def figures(out, name: str, loaders: int) -> list[float]:
    c = np.asarray(out["clk"]).reshape(WARPS, 2).astype(np.int64)
    chase = float(((c[:4, 1] - c[:4, 0]) / STEPS).mean())
    run = c[:4 + 4 * loaders]
    load = float(((run[4:, 1] - run[4:, 0]) / (8 * ITERS)).mean()) if loaders else 0.0
    per_cycle = (4 * STEPS + 4 * loaders * 8 * ITERS) / float(run[:, 1].max() - run[:, 0].min())
    return [round(chase, 2), round(load, 2), round(per_cycle, 3)]
