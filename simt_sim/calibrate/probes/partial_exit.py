"""What the lanes that go on pay when the rest of their warp exits.  tools/kernels/partial_exit.cu's
k_partial_exit: every lane stores `stores` words to global memory (a line per warp each), runs
`delay` iterations of a dependent FFMA loop, reads the clock, and then the lanes at or above `keep`
exit (`@P0 EXIT`) while the others go on to a second clock read.  ptxas 13.0 puts ULDC, ISETP
(stall count 13) and the EXIT (5) between the two reads; the model holds the lanes that go on
sass.reconverge_latency after the EXIT.  The figures, per case: the mean over warps of the cycles
between the two clock reads (keep 32: nobody exits, the EXIT predicated off), and of the cycles
from the first clock read to the one before the exit (the stores and the delay loop)."""
from __future__ import annotations

import numpy as np

MEANING = "cycles across a partial EXIT (31 or 16 lanes leave) against none, after 0-16 stores, 1-32 warps"
KERNELS = "partial_exit"
FUNCTIONS = {"k_partial_exit": "k_partial_exit"}
SETS = {"1 warp": 32, "16 warps": 512, "32 warps": 1024}
# label: (stores, delay, keep); one launch each, two figures each
CASES = {"no stores, none exit": (0, 0, 32), "no stores, 31 exit": (0, 0, 1), "no stores, 16 exit": (0, 0, 16),
         "1 store, none exit": (1, 0, 32), "1 store, 31 exit": (1, 0, 1),
         "4 stores, none exit": (4, 0, 32), "4 stores, 31 exit": (4, 0, 1),
         "16 stores, none exit": (16, 0, 32), "16 stores, 31 exit": (16, 0, 1),
         "4 stores, delay 64, none exit": (4, 64, 32), "4 stores, delay 64, 31 exit": (4, 64, 1)}
FIGURES = "exit_and_before_cycles"
FIGURE_NAMES = tuple(f"{c}: {w}" for c in CASES for w in ("across the exit", "before it"))
RECORDING = "h200/partial_exit.json"
HEADER = {"cases": CASES}
KEYS = ("sass.reconverge_latency",)
FIT = {"sass.reconverge_latency": (9, 13, 17)}
FIT_ROWS = ("k_partial_exit / 1 warp",)
BUFFERS = {"clk": ("int64", 96), "out": ("float32", 16 * 1024)}


def launch_of(name: str, threads: int, case: str):
    stores, delay, keep = CASES[case]
    return threads, ["clk", "out", np.int32(stores), np.int32(delay), np.int32(keep), np.float32(0.999),
                     np.float32(0.001)]


def figures(out, name: str, threads: int) -> list[float]:
    """[mean cycles across the exit, mean cycles of the stores and delay] over the block's warps."""
    c = np.asarray(out["clk"])[: 3 * (threads // 32)].reshape(-1, 3).astype(np.int64)
    return [round(float((c[:, 2] - c[:, 1]).mean()), 2), round(float((c[:, 1] - c[:, 0]).mean()), 2)]
