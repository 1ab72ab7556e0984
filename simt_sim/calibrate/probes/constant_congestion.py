"""How a constant miss's wait grows with the SMs that miss at once.  tools/kernels/
constant_congestion.cu: blocks of four warps, one an SM, each warp reading a parameter word before
its window and, in the window, words of lines nothing has read: k_imc_one one line through its
sub-partition's immediate-constant cache (ULDC c[0x0][0x440]), k_ldc_one one through the SM's LDC
cache (LDC c[0x0][R+0x440]), k_mixed_three three lines (ULDC 0x440 and 0x4c0, LDC 0x480);
k_imc_late as k_imc_one with its window 2,000 cycles after the pre-read.  Grids of 1 to 132 blocks
(264: two an SM); on the GPU 9 launches, the first dropped (the code's own first fetch); the model
runs the grid twice on the whole h100 config and keeps the second.  Figures: the mean window over
the grid's warps, the mean of each launch's longest (medians over the launches), the SMs used.

Recorded on the H200: a ULDC takes 62-72 cycles with 1 to 66 SMs starting, 130 when all 132 start,
72 2,000 cycles later; the model gives the GPU 256 constant line requests in flight
(sass.constants.gpu_misses, --fit among its neighbours)."""
from __future__ import annotations

import numpy as np

from simt_sim.calibrate.probes.base import ptx_of, windows_measured, windows_recorded, windows_simulated

MEANING = "cycles of a warp's first read of a constant line as 1-132 SMs miss at once (ULDC, LDC, three lines)"
KERNELS = "constant_congestion"
FUNCTIONS = {"k_imc_one": "one line, immediate-constant cache",
             "k_imc_late": "the same, 2,000 cycles after the pre-read", "k_ldc_one": "one line, LDC cache",
             "k_mixed_three": "three lines: two immediate, one LDC"}
GRIDS = (1, 2, 4, 8, 16, 33, 66, 132, 264)
SETS = {str(blocks): blocks for blocks in GRIDS}
THREADS = 128
FIGURES = "windows"
FIGURE_NAMES = ("mean window", "mean longest window", "SMs")
RECORDING = "h200/constant_congestion.json"
KEYS = ("sass.constants.gpu_misses",)
FIT = {"sass.constants.gpu_misses": (224, 256, 288)}
FIT_ROWS = tuple(f"{name} / {blocks}" for name in FUNCTIONS for blocks in GRIDS)
# rows whose figures all match (the mean alone, also at k_imc_one / 132 and k_imc_late / 132: tests/test_microbench.py)
CHECKS = {"k_imc_one / 66": 0.08, "k_mixed_three / 132": 0.08}
recorded_rows = windows_recorded


def buffers(blocks: int) -> tuple[np.ndarray, np.ndarray]:
    return np.zeros(blocks * THREADS + 65536, np.uint32), np.zeros(blocks * THREADS // 32 * 4, np.int64)


def windows(blocks: int) -> int:
    """One clock row a warp."""
    return blocks * THREADS // 32


def simulated(name: str, blocks: int, overrides=()) -> list[float]:
    return windows_simulated(ptx_of(KERNELS), name, blocks, THREADS, buffers, windows(blocks), overrides)


def measure() -> dict:
    return windows_measured("constant_congestion", ptx_of(KERNELS), FUNCTIONS, GRIDS, THREADS, buffers, windows)
