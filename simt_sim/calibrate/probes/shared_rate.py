"""How fast shared-memory accesses with bank conflicts issue.  Every running warp issues 64
iterations of 8 independent accesses of one kind (tools/kernels/shared_rate.cu): STS/LDS .32 with
lanes 1, 4 or 8 words apart (1-, 4-, 8-way), .64 and .128 conflict-free, .64 as the m16n8
accumulator tile (4 passes) and .128 with 16 lanes 64 bytes apart (8 passes).  One block of 16
warps, of which 1, 4 (one per sub-partition or all on one) or 16 run: the cycles per access of a
lone warp, of a sub-partition and of the SM tell which of them pays for a bank conflict
(sass.units.ldst.shared_store_cycles, warp_shared_store_bytes_per_cycle)."""
from __future__ import annotations

import numpy as np

ACCESSES, WARPS = 64 * 8, 16
MEANING = "cycles per STS/LDS of each width and conflict, of a warp and of the SM, 1 to 16 warps"
KERNELS = "shared_rate"
FUNCTIONS = {"k_sts32": "STS.32", "k_sts32_4way": "STS.32 4-way", "k_sts32_8way": "STS.32 8-way",
             "k_sts64": "STS.64", "k_sts64_tile": "STS.64 tile (4 passes)", "k_sts128": "STS.128",
             "k_sts128_rows": "STS.128 16 lanes (8 passes)", "k_lds32": "LDS.32", "k_lds32_4way": "LDS.32 4-way",
             "k_lds64": "LDS.64", "k_lds64_tile": "LDS.64 tile (4 passes)", "k_lds128": "LDS.128",
             "k_lds128_rows": "LDS.128 16 lanes (8 passes)"}
SETS = {"1 warp": 0x1, "4 warps, 4 sub-partitions": 0xF, "4 warps, 1 sub-partition": 0x1111, "16 warps": 0xFFFF}
FIGURES, FIGURE_NAMES = "cycles_per_access", ("cycles per access: a warp's", "the SM's")
RECORDING = "h200/shared_rate.json"
HEADER = {"accesses": ACCESSES, "kernels": FUNCTIONS, "active": SETS}
KEYS = ("sass.units.ldst.shared_store_cycles", "sass.units.ldst.warp_shared_store_bytes_per_cycle")
FIT = {"sass.units.ldst.shared_store_cycles": (1, 2, 3)}
FIT_ROWS = tuple(f"k_sts{w} / 4 warps, 1 sub-partition" for w in (32, 64, 128))   # a width's cycles, and 2 more
CHECKS = {"k_sts64 / 16 warps": 0.05, "k_sts128 / 4 warps, 1 sub-partition": 0.05}
BUFFERS = {"clk": ("int64", 2 * WARPS), "out": ("uint32", WARPS * 32)}


def launch_of(name: str, active: int):
    return WARPS * 32, ["clk", "out", np.uint32(active)]


def figures(out, name: str, active: int) -> list[float]:
    """The running warps' mean cycles per access, and the SM's: their span from the first start
    to the last end over all their accesses."""
    c = np.asarray(out["clk"]).reshape(WARPS, 2).astype(np.int64)[[w for w in range(WARPS) if (active >> w) & 1]]
    per_warp = float(((c[:, 1] - c[:, 0]) / ACCESSES).mean())
    sm = float(c[:, 1].max() - c[:, 0].min()) / (ACCESSES * len(c))
    return [round(per_warp, 2), round(sm, 2)]
