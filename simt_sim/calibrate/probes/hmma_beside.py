"""What a warp's stores, FFMAs and shared loads cost while other warps of its sub-partition run
tensor-core HMMAs.  Warp 0 runs 64 steps of one kind of work (tools/kernels/hmma_beside.cu) while
warps 4, 8 and 12 run nothing, HMMA.16816 with f32 or f16 accumulators (4 chains a warp), HMMAs
with a zero accumulator (fewer registers to read), or FFMAs.  The figures: warp 0's cycles per
step and the neighbours' cycles per HMMA (or FFMA) of the sub-partition (nan where that side does
not run).  Measured, partly modelled: the register-file reads of the accumulators."""
from __future__ import annotations

import numpy as np

STEPS, BUSY_ITERS, THREADS = 64, 160, 512
WORK = {"stg32": "4 STG.32", "stg64": "4 STG.64", "stg128": "4 STG.128", "stg64x1": "1 STG.64",
        "sts32": "4 STS.32", "sts64": "4 STS.64", "sts128": "4 STS.128", "sts64x1": "1 STS.64",
        "ffmadep": "8 dependent FFMA", "ffmaind": "8 FFMA, 3 registers", "ldsdep": "4 dependent LDS"}
BUSY = {"alone": "nothing", "hmma": "HMMA f32", "hmmaz": "HMMA C=0", "hmma16": "HMMA f16", "ffma": "FFMA"}
MEANING = "warp 0's stores / FFMAs / LDS per step beside 3 warps of HMMA (f32, f16, C=0) or FFMA"
KERNELS = "hmma_beside"
FUNCTIONS = {f"k_{w}_{b}": f"{WORK[w]} beside {BUSY[b]}" for w in WORK for b in BUSY}
FUNCTIONS.update({f"k_idle_{b}": f"idle beside {BUSY[b]}" for b in BUSY if b != "alone"})
SETS = {"block": 0}
FIGURES, FIGURE_NAMES, DECIMALS = "figures", ("warp 0's cycles per step", "the neighbours' per op"), 3
RECORDING = "h200/hmma_beside.json"
HEADER = {"steps": STEPS, "kernels": {k: f"{k[2:].rsplit('_', 1)[0]} / {k.rsplit('_', 1)[1]}" for k in FUNCTIONS}}
CHECKS = {"k_ldsdep_alone / block": 0.05, "k_idle_ffma / block": 0.05}
BUFFERS = {"times": ("uint32", 8), "out": ("float32", 8192)}


def launch_of(name: str, _):
    return THREADS, ["times", "out", np.float32(0.5), np.float32(1.0)]


def figures(out, name: str, _) -> list[float]:
    """[warp 0's cycles per step, the busy warps' cycles per HMMA (FFMA) of the sub-partition]
    (nan where that side does not run)."""
    t = np.asarray(out["times"]).astype(np.int64).reshape(4, 2)
    step = float((t[0, 1] - t[0, 0]) % (1 << 32)) / STEPS if not name.startswith("k_idle") else float("nan")
    per_busy = 3 * BUSY_ITERS * (32 if name.endswith("_ffma") else 4)
    busy = float(t[1:, 1].max() - t[1:, 0].min()) / per_busy if not name.endswith("_alone") else float("nan")
    return [round(step, 2), round(busy, 3)]
