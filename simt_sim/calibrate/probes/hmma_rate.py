"""How many HMMA.16816 a sub-partition issues per cycle.  Every running warp issues 128 rounds of
1, 4 or 8 independent mma.sync m16n8k16 (f16 inputs, f32 or f16 accumulators;
tools/kernels/hmma_rate.cu).  One block of 32 warps, of which 1, 2 or 4 on one sub-partition, 4 on
four, 16 or 32 run: cycles per HMMA of one warp and of the busiest sub-partition (its warps' span
over their HMMAs).  Once two warps share a sub-partition it takes one HMMA per 6 cycles:
sass.interval_overrides HMMA."""
from __future__ import annotations

import numpy as np

ITERS, WARPS = 128, 32
MEANING = "cycles per HMMA.16816 of a warp and of a sub-partition, 1 to 32 warps"
KERNELS = "hmma_rate"
FUNCTIONS = {"k_f32_1": ("HMMA.16816.F32, 1 chain", 1), "k_f32_4": ("HMMA.16816.F32, 4 chains", 4),
             "k_f32_8": ("HMMA.16816.F32, 8 chains", 8), "k_f16_1": ("HMMA.16816.F16, 1 chain", 1),
             "k_f16_4": ("HMMA.16816.F16, 4 chains", 4), "k_f16_8": ("HMMA.16816.F16, 8 chains", 8)}
SETS = {"1 warp": 0x1, "2 warps, 1 sub-partition": 0x11, "4 warps, 1 sub-partition": 0x1111,
        "4 warps, 4 sub-partitions": 0xF, "16 warps": 0xFFFF, "32 warps": 0xFFFFFFFF}
FIGURES, FIGURE_NAMES = "cycles_per_hmma", ("cycles per HMMA: a warp's", "sub-partition 0's")
RECORDING = "h200/hmma_rate.json"
HEADER = {"iterations": ITERS, "kernels": {k: v[0] for k, v in FUNCTIONS.items()}, "active": SETS}
KEYS = ("sass.interval_overrides.HMMA",)
FIT = {"sass.interval_overrides.HMMA": (4, 6, 8)}
FIT_ROWS = ("k_f32_8 / 4 warps, 1 sub-partition",)
CHECKS = {f"{f} / {s}": 0.1 for f in ("k_f32_4", "k_f32_8", "k_f16_8") for s in ("4 warps, 1 sub-partition", "32 warps")}
BUFFERS = {"clk": ("uint32", 2 * WARPS), "out": ("float32", WARPS * 32)}


def launch_of(name: str, active: int):
    return WARPS * 32, ["clk", "out", np.uint32(active)]


def figures(out, name: str, active: int) -> list[float]:
    """A warp's mean cycles per HMMA, and the busiest sub-partition's (its warps' span over all
    their HMMAs)."""
    per_warp = ITERS * FUNCTIONS[name][1]
    warps = [w for w in range(WARPS) if (active >> w) & 1]
    c = np.asarray(out["clk"]).reshape(WARPS, 2).astype(np.int64)
    spans = (c[warps, 1] - c[warps, 0]) % (1 << 32)
    sp0 = [w for w in warps if w % 4 == 0]
    sub = c[sp0]
    sp_span = float(((sub[:, 1] - sub[:, 0].min()) % (1 << 32)).max())
    return [round(float(spans.mean()) / per_warp, 2), round(sp_span / (per_warp * len(sp0)), 2)]
