"""Do memory instructions whose guard predicate is false take the LD/ST pipe?  Every running warp
issues 64 iterations of 8 independent LDS.32, STS.32 or LDG.E (an L1-resident line) under a
predicate true or false for every lane (tools/kernels/pred_off.cu); ptxas keeps the guard, so the
instructions issue either way.  One block of 16 warps, of which 1, 4 (one per sub-partition) or 16
run.  The figures: a running warp's mean cycles per instruction and the SM's (the running warps'
span over all their instructions), as probe shared_rate's.  Where the predicate is false the
access moves no data; if the pipe still takes it, the false rows cost what the true ones do."""
from __future__ import annotations

import numpy as np

from simt_sim.calibrate.probes import shared_rate

WARPS = shared_rate.WARPS
MEANING = "cycles per LDS / STS / LDG whose guard is false against true: does the pipe still take them"
KERNELS = "pred_off"
FUNCTIONS = {"k_lds": "LDS.32", "k_sts": "STS.32", "k_ldg": "LDG.E (L1 hits)"}
ACTIVE = {"1 warp": 0x1, "4 warps, 4 sub-partitions": 0xF, "16 warps": 0xFFFF}
GUARDS = {"true": 1, "false": 0}
SETS = {f"{label} / {guard}": (active, on) for label, active in ACTIVE.items() for guard, on in GUARDS.items()}
FIGURES, FIGURE_NAMES = "cycles_per_instruction", ("cycles per instruction: a warp's", "the SM's")
RECORDING = "h200/pred_off.json"
HEADER = {"accesses": shared_rate.ACCESSES}
CHECKS = {f"k_lds / 16 warps / {g}": 0.1 for g in GUARDS}
BUFFERS = {"clk": ("int64", 2 * WARPS), "out": ("uint32", WARPS * 32), "g": np.arange(32 * 8, dtype=np.uint32)}


def launch_of(name: str, case):
    active, on = case
    return WARPS * 32, ["clk", "out", "g", np.uint32(active), np.int32(on)]


def figures(out, name: str, case) -> list[float]:
    return shared_rate.figures(out, name, case[0])
