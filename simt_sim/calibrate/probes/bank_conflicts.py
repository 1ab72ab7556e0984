"""What bank conflicts cost a shared load.  One block of 1, 4 (one a sub-partition) or 16 (four a
sub-partition) warps; every warp of a k_ kernel runs 64 iterations of 8 independent
LDSM.16.M88.4 or LDS.32 whose addresses give 1 to 8 passes through the banks per 8x8 matrix (LDSM)
or per warp (LDS.32) (tools/kernels/bank_conflicts.cu); one warp's dependent chain of each (c_,
its address adding the last load's data) gives its latency plus one IADD.  Figures: warp-
instructions per cycle per SM over the span from the first warp's start to the last warp's end
(k_), the chain's cycles per step (c_).

Recorded on an H200: each 8x8 matrix of an LDSM passes the banks on its own (an LDSM.x4 of rows
64 bytes apart makes 16 passes, not 8); 16 warps are bound by the SM's port at one pass a cycle
once a load makes 4; a lone warp pays its load's width at 32 bytes a cycle and each conflict pass
at 64 (sass.units.ldst.warp_shared_conflict_bytes_per_cycle).  The wavefronts Nsight Compute counts
per shared load of each k_ kernel (one launch of 1 warp each) are recorded beside,
references/h200/bank_conflicts-ncu.json (`simt-sim probe bank_conflicts --ncu`)."""
from __future__ import annotations

import numpy as np

from simt_sim.calibrate.probes.base import warp_rate

MEANING = "warp-LDSM / LDS.32 per cycle per SM with 1-8 bank passes, 1-16 warps; a dependent chain's cycles per load"
KERNELS = "bank_conflicts"
LOADS = {"ldsm_s16_m128": "LDSM.x4, 1 pass a matrix", "ldsm_s32_m256": "LDSM.x4, 2 a matrix",
         "ldsm_s64_m16": "LDSM.x4, 4 a matrix", "ldsm_s128_m16": "LDSM.x4, 8 a matrix",
         "lds_s4": "LDS.32, 1 pass", "lds_s16": "LDS.32, 4 passes", "lds_s32": "LDS.32, 8 passes"}
FUNCTIONS = {**{f"k_{n}": f"{w}: rate" for n, w in LOADS.items()}, **{f"c_{n}": f"{w}: chain" for n, w in LOADS.items()}}
SETS = {"1 warp": 1, "4 warps": 4, "16 warps": 16}
ROWS = [f"k_{n} / {s}" for n in LOADS for s in SETS] + [f"c_{n} / 1 warp" for n in LOADS]
PER_WARP, CHAIN_STEPS = 64 * 8, 256
FIGURES, DECIMALS = "figures", 4
FIGURE_NAMES = ("warp-instructions per cycle per SM (k_) or chain cycles per step (c_)",)
RECORDING = "h200/bank_conflicts.json"
HEADER = {"kernels": LOADS}
KEYS = ("sass.units.ldst.warp_shared_conflict_bytes_per_cycle", "sass.units.ldst.warp_ldsm_bytes_per_cycle")
CHECKS = {"k_ldsm_s128_m16 / 16 warps": 0.05, "k_ldsm_s64_m16 / 16 warps": 0.05, "c_ldsm_s16_m128 / 1 warp": 0.05}
BUFFERS = {"clk": ("int64", 64), "out": ("uint32", 512)}

WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
INSTS = ("smsp__inst_executed_op_ldsm.sum", "smsp__inst_executed_op_shared_ld.sum")
NCU = {"recording": "h200/bank_conflicts-ncu.json", "figures": "wavefronts_per_load", "launches": 1,
       "metrics": (WAVEFRONTS, *INSTS), "rows": [f"k_{n} / 1 warp" for n in LOADS]}


def launch_of(name: str, warps: int):
    return 32 * warps, ["clk", "out", np.uint32(0)]


def figures(out, name: str, warps: int) -> list[float]:
    clk = out["clk"]
    return [warp_rate(clk, warps, PER_WARP)] if name.startswith("k_") else [(clk[1] - clk[0]) / CHAIN_STEPS]


def ncu_figures(launches, name: str, warps: int) -> dict:
    """Shared-load wavefronts per shared-load instruction (LDSM and LDS together)."""
    m = launches[-1]
    return {"wavefronts_per_load": round(m[WAVEFRONTS] / sum(m[i] for i in INSTS), 3)}
