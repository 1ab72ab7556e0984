"""How long a warp's first pass over a block of code takes against its later passes.
tools/kernels/cold_code.cu's k_cold_code runs 4 passes of a straight-line block of 128 independent
FFMAs (8 chains, 16 code lines of 128 bytes) between two clock reads; one block of 1 warp, or of 4
(one a sub-partition).  The GPU runs 9 launches: the first (the code new to the GPU) is kept apart
from the median of the others; the model's "first launch" rows are one launch, its "later launches"
rows the second of two on the same caches.  Figures: the mean over warps of each pass's cycles.

Recorded on an H200: the first launch's first pass 249 cycles, later launches' 138, a warm pass
130 (measured, not modelled: the model's first pass is the same every launch)."""
from __future__ import annotations

import numpy as np

MEANING = "cycles of each of 4 passes over a 2 KiB block of FFMAs, a launch's first pass against later ones"
KERNELS = "cold_code"
PASSES = 4
FUNCTIONS = {"k_cold_code": "4 passes of 128 FFMAs"}
WARP_SETS = {"1 warp": 32, "4 warps": 128}
LAUNCHES = {"first launch": 1, "later launches (median)": 2}
# "WARPS, WHICH": (threads, launches the model runs, the last kept)
SETS = {f"{w}, {which}": (threads, n) for w, threads in WARP_SETS.items() for which, n in LAUNCHES.items()}
FIGURES = "passes_cycles"
FIGURE_NAMES = tuple(f"pass {p}" for p in range(PASSES))
RECORDING = "h200/cold_code.json"
A, B = np.float32(0.999), np.float32(0.001)
BUFFERS = {"clk": ("int64", 2 * PASSES * 32), "out": ("float32", 1024)}


def recorded_rows(figures: dict) -> dict:
    return {f"k_cold_code / {w}, {which}": v for w, launches in figures.items() for which, v in launches.items()}


def launch_of(name: str, at: tuple[int, int]):
    return at[0], ["clk", "out", np.int32(PASSES), A, B]


def launches(name: str, at: tuple[int, int]) -> int:
    return at[1]


def passes(clk, threads: int) -> list[float]:
    """Each pass's mean cycles over the block's warps."""
    c = np.asarray(clk)[: threads // 32 * PASSES * 2].reshape(-1, PASSES, 2).astype(np.int64)
    return [round(float(v), 1) for v in (c[:, :, 1] - c[:, :, 0]).mean(axis=0)]


def figures(out, name: str, at: tuple[int, int]) -> list[float]:
    return passes(out["clk"], at[0])


def measure() -> dict:
    """9 launches a warp set: the first apart, the median of the others."""
    import cupy as cp
    from simt_sim.calibrate.probes.base import gpu_name, ptx_of
    f = cp.RawModule(path=str(ptx_of(KERNELS))).get_function("k_cold_code")
    out = {}
    for label, threads in WARP_SETS.items():
        runs = []
        for _ in range(9):
            clk, res = cp.zeros(2 * PASSES * 32, cp.int64), cp.zeros(1024, cp.float32)
            f((1,), (threads,), (clk, res, np.int32(PASSES), A, B))
            cp.cuda.runtime.deviceSynchronize()
            runs.append(passes(clk.get(), threads))
        out[label] = {"first launch": runs[0], "later launches (median)": np.median(runs[1:], axis=0).round(1).tolist()}
    return {"probe": "cold_code", "device": gpu_name(), FIGURES: out}
