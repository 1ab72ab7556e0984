"""Whether a warp's stores read their data later while other warps of its sub-partition keep busy.
Warp 0 runs stg_read's loop (4 STG.64 or 4 STS.64 a step, then two FFMAs that overwrite the data
and wait for the last store's read barrier) while warps 4, 8 and 12 run nothing, back-to-back
HMMA.16816.F32, FFMA or LDS.128 (tools/kernels/store_beside.cu): the tensor-core predictor's
epilogue waits much longer for its stores' read barrier on the H100 than alone."""
from __future__ import annotations

import numpy as np

STEPS, THREADS = 64, 512
MEANING = "warp 0's 4 STG.64 / STS.64 and their read barrier per step, beside HMMA, FFMA or LDS warps"
KERNELS = "store_beside"
FUNCTIONS = {f"k_{st}_{busy}": f"4 {st.upper()}.64 beside {busy}" for st in ("stg", "sts")
             for busy in ("alone", "hmma", "ffma", "lds")}
FUNCTIONS.update({"k_stg_hmma_1w": "4 STG.64 beside 1 hmma warp", "k_stg_hmma_2w": "4 STG.64 beside 2 hmma warps",
                  "k_stg_hmma_1c": "4 STG.64 beside hmma 1 chain", "k_sts_hmma_1w": "4 STS.64 beside 1 hmma warp",
                  "k_sts_hmma_1c": "4 STS.64 beside hmma 1 chain",
                  "k_stg_hmma_other": "4 STG.64, hmma on another SMSP"})
SETS = {"warp 0": 0}
FIGURES, FIGURE_NAMES = "cycles_per_step", ("warp 0's cycles per step",)
RECORDING = "h200/store_beside.json"
HEADER = {"steps": STEPS, "kernels": FUNCTIONS}
CHECKS = {"k_stg_alone / warp 0": 0.05}
BUFFERS = {"times": ("uint32", 2), "out": ("float32", 4096)}


def launch_of(name: str, _):
    return THREADS, ["times", "out", np.float32(0.5), np.float32(1.0)]


def figures(out, name: str, _) -> list[float]:
    t = out["times"]
    return [round(float((int(t[1]) - int(t[0])) % (1 << 32)) / STEPS, 2)]
