"""When stores read their data under load.  Each step of a loop stores a register pair K times
(STG.64 of 256 bytes a warp, STS.64, or four of each as the tensor-core predictor's epilogue
does), then two FFMAs overwrite the pair and wait for the last store's read barrier
(tools/kernels/stg_read.cu).  One block of 32 warps, of which 1, 4 (one per sub-partition), 16 or
32 run: the cycles per step show how long a store's data read waits behind the stores before it,
the warp's own and its neighbours' (sass.global_store_bytes_per_cycle, shared_store_bytes_per_cycle,
global_store_line_passes)."""
from __future__ import annotations

import numpy as np

from simt_sim.calibrate.probes.base import running_warp_steps

STEPS, WARPS = 64, 32
MEANING = "cycles per step of K STG.64 / STS.64 and FFMAs overwriting their data, 1 to 32 warps"
KERNELS = "stg_read"
FUNCTIONS = {"k_stg1": "1 STG.64", "k_stg2": "2 STG.64", "k_stg4": "4 STG.64", "k_stg8": "8 STG.64",
             "k_sts1": "1 STS.64", "k_sts2": "2 STS.64", "k_sts4": "4 STS.64", "k_stg4_sts4": "4 STG.64, 4 STS.64",
             "k_sts128_1": "1 STS.128", "k_sts128_2": "2 STS.128", "k_sts128_4": "4 STS.128",
             "k_tile_stg4": "tile: 4 STG.64", "k_tile_sts4": "tile: 4 STS.64", "k_tile_stg4_sts4": "tile: 4 STG, 4 STS",
             "k_tile_epilogue": "tile epilogue"}
SETS = {"1 warp": 0x1, "4 warps, 4 sub-partitions": 0xF, "4 warps, 1 sub-partition": 0x1111, "16 warps": 0xFFFF,
        "32 warps": 0xFFFFFFFF}
FIGURES, FIGURE_NAMES = "cycles_per_step", ("cycles per step: mean", "longest")
RECORDING = "h200/stg_read.json"
HEADER = {"steps": STEPS, "kernels": FUNCTIONS, "active": SETS}
KEYS = ("sass.global_store_bytes_per_cycle", "sass.shared_store_bytes_per_cycle", "sass.global_store_line_passes")
FIT = {"sass.global_store_bytes_per_cycle": (16, 32, 64)}
FIT_ROWS = ("k_stg8 / 1 warp",)
CHECKS = {"k_tile_epilogue / 16 warps": 0.05}
BUFFERS = {"times": ("uint32", 2 * WARPS), "out": ("float32", WARPS * 544)}


def launch_of(name: str, active: int):
    return WARPS * 32, ["times", "out", np.uint32(active), np.float32(0.5), np.float32(1.0)]


def figures(out, name: str, active: int) -> list[float]:
    """The running warps' mean and longest cycles per step, from their two clock words."""
    per = running_warp_steps(out["times"], WARPS, active, STEPS)
    return [round(float(per.mean()), 2), round(float(per.max()), 2)]
