"""How long a shared load with bank conflicts takes.  Each running warp chases a dependent chain
of loads (tools/kernels/lds_conflict.cu): LDS.32 with lanes 1, 2, 4, 8 or 16 words apart (1- to
16-way conflicts), LDS.128 conflict-free, and the tensor-core predictor's epilogue reads, 16 lanes
64 bytes apart (LDS.128 and LDS.64).  One block of 16 warps, of which 1, 4 (one per sub-partition
or all on one) or 16 run: the cycles per step are a load's latency, then its throughput; each
further pass through the banks adds memory.shared.wavefront_latency (and the conflict rate)."""
from __future__ import annotations

import numpy as np

from simt_sim.calibrate.probes.base import running_warp_steps

STEPS, WARPS = 64, 16
MEANING = "cycles per dependent LDS step with 1- to 16-way bank conflicts, 1 to 16 warps"
KERNELS = "lds_conflict"
FUNCTIONS = {"k_lds32_s1": "LDS.32 1-way", "k_lds32_s2": "LDS.32 2-way", "k_lds32_s4": "LDS.32 4-way",
             "k_lds32_s8": "LDS.32 8-way", "k_lds32_s16": "LDS.32 16-way", "k_lds128_s4": "LDS.128",
             "k_lds128_s4_h": "LDS.128 16 lanes", "k_lds128_s16_h": "LDS.128 16 lanes 64 B",
             "k_lds64_s16_h": "LDS.64 16 lanes 64 B"}
SETS = {"1 warp": 0x1, "4 warps, 4 sub-partitions": 0xF, "4 warps, 1 sub-partition": 0x1111, "16 warps": 0xFFFF}
FIGURES, FIGURE_NAMES = "cycles_per_step", ("cycles per step: mean", "longest")
RECORDING = "h200/lds_conflict.json"
HEADER = {"steps": STEPS, "kernels": FUNCTIONS, "active": SETS}
KEYS = ("memory.shared.wavefront_latency", "sass.units.ldst.warp_shared_conflict_bytes_per_cycle")
FIT = {"memory.shared.wavefront_latency": (0, 1, 2)}
FIT_ROWS = ("k_lds32_s16 / 1 warp",)        # 16 passes through the banks
CHECKS = {f"k_lds32_s{k} / 1 warp": 0.05 for k in (1, 2, 4, 8, 16)}
BUFFERS = {"times": ("uint32", 2 * WARPS), "out": ("uint32", WARPS * 32)}


def launch_of(name: str, active: int):
    return WARPS * 32, ["times", "out", np.uint32(active)]


def figures(out, name: str, active: int) -> list[float]:
    """The running warps' mean and longest cycles per step, from their two clock words."""
    per = running_warp_steps(out["times"], WARPS, active, STEPS)
    return [round(float(per.mean()), 2), round(float(per.max()), 2)]
