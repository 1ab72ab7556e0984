"""What a warp's shared stores and special-register reads cost while the other warps of its
sub-partition keep its MIO busy.  Warp 0 runs a loop whose STS.32's data the next instruction
overwrites, or a chain of S2R %warpid (tools/kernels/mio_beside.cu), while warps 4, 8 and 12 run
nothing, S2R, LDSM.x4, L1-hit LDG, STS.32, STG.64 or HMMA.16816 loops, or all 16 warps run warp 0's
loop.  The predictor's tile (tools/tc_tile_rate.py) waits far longer for its hidden-layer stores'
read barriers with 4 warps per sub-partition than with one.  The figures: warp 0's cycles per step,
and the busy warps' (their span over their iterations)."""
from __future__ import annotations

import numpy as np

STEPS, BUSY_ITERS, THREADS = 64, 96, 512
WORK = {"stschain": "8 STS.32, each data overwritten", "s2rchain": "8 dependent S2R"}
BUSY = {"alone": "nothing", "s2r": "S2R", "ldsm": "LDSM.x4", "ldg": "LDG (L1 hits)", "sts": "STS.32",
        "stg": "STG.64", "hmma": "HMMA f16", "all": "all 16 warps the same", "mix": "the tile's MIO mix",
        "mixhmma": "the mix + HMMA f32"}
MEANING = "warp 0's STS / S2R chain per step while 3 warps keep the MIO busy (S2R, LDSM, LDG, STS, STG, HMMA)"
KERNELS = "mio_beside"
FUNCTIONS = {f"k_{w}_{b}": f"{WORK[w]} beside {BUSY[b]}" for w in WORK for b in BUSY}
SETS = {"block": 0}
FIGURES, FIGURE_NAMES = "figures", ("warp 0's cycles per step", "the busy warps' per iteration")
RECORDING = "h200/mio_beside.json"
HEADER = {"steps": STEPS, "kernels": {k: f"{k[2:].rsplit('_', 1)[0]} / {k.rsplit('_', 1)[1]}" for k in FUNCTIONS}}
CHECKS = {"k_s2rchain_alone / block": 0.05, "k_stschain_alone / block": 0.05}
BUFFERS = {"times": ("uint32", 32), "g": np.arange(4096, dtype=np.uint32), "gout": ("uint32", 4096 * 17)}


def launch_of(name: str, _):
    return THREADS, ["times", "g", "gout"]


def figures(out, name: str, _) -> list[float]:
    """[warp 0's cycles per step, the busy warps' cycles per iteration (span of warps 4, 8, 12, or
    of all 16 warps' steps for _all)]."""
    t = np.asarray(out["times"]).astype(np.int64).reshape(-1, 2)
    step = float((t[0, 1] - t[0, 0]) % (1 << 32)) / STEPS
    if name.endswith("_alone"):
        return [round(step, 2), float("nan")]
    rows, per = (slice(0, 16), STEPS) if name.endswith("_all") else ([4, 8, 12], BUSY_ITERS)
    span = float(t[rows, 1].max() - t[rows, 0].min()) / per
    return [round(step, 2), round(span, 2)]
