"""When a queued store reads its data register.  Each step of a loop issues FILL 16-byte shared
stores, a store of x (shared or global) and an FFMA that overwrites x, so the FFMA waits for that
store's read barrier (tools/kernels/store_read.cu).  If stores read their data at issue, a step
costs what the pipe takes for its stores; if at the pipe's entry, the FFMA also waits for the fill
stores ahead of x to pass, and the warp's next stores cannot overlap them.  A global store reads
its data sass.global_store_data_read_cycles after issue, a shared one sass.store_data_read_cycles."""
from __future__ import annotations

import numpy as np

from simt_sim.calibrate.probes.base import running_warp_steps

STEPS, WARPS = 64, 16
MEANING = "cycles per step of (FILL STS.128, a store of x, an FFMA overwriting x): when a store reads x"
KERNELS = "store_read"
FUNCTIONS = {f"k_{x}_fill{n}": f"{n} STS.128, then {x.upper()}.32 of x" for x in ("sts", "stg") for n in (0, 1, 2, 4)}
SETS = {"1 warp": 0x1, "4 warps, 4 sub-partitions": 0xF, "4 warps, 1 sub-partition": 0x1111}
FIGURES, FIGURE_NAMES = "cycles_per_step", ("cycles per step, each running warp",)
RECORDING = "h100/store_read.json"
HEADER = {"steps": STEPS, "kernels": FUNCTIONS, "active": SETS}
KEYS = ("sass.global_store_data_read_cycles", "sass.store_data_read_cycles", "sass.memory_queue")
FIT = {"sass.global_store_data_read_cycles": (2, 5, 8)}
FIT_ROWS = ("k_stg_fill0 / 1 warp", "k_stg_fill1 / 1 warp")
CHECKS = {"k_sts_fill0 / 1 warp": 0.05, "k_stg_fill0 / 1 warp": 0.05}
BUFFERS = {"times": ("uint32", 2 * WARPS), "out": ("float32", WARPS * 64),
           "offs": np.arange(8, dtype=np.uint32) * 512}          # shared rows of 512 bytes


def launch_of(name: str, active: int):
    return WARPS * 32, ["times", "out", "offs", np.uint32(active), np.float32(0.5), np.float32(1.0)]


def figures(out, name: str, active: int) -> list[float]:
    """Each running warp's cycles per step, from its two clock words."""
    return running_warp_steps(out["times"], WARPS, active, STEPS).round(2).tolist()
