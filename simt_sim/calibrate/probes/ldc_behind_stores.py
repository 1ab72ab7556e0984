"""What a block's first read of a parameter line costs right after its threads' stores.
tools/kernels/ldc_behind_stores.cu: blocks of 256 threads, one an SM, each thread storing 0, 3, 9
or 18 words (a warp's store one line), a barrier, then thread 0's window: the clock, a read (none;
an LDC of a parameter line nothing has read; an ld.global.cg of a line the block loaded before its
stores), a store of what it read, the clock.  The workloads' epilogues read their clock pointer so
(w-regroup-lbm-*: nine stores a thread, then LDC.64 c[0x0][0x240]).  Also: an LDC of the line
thread 0 read before its stores (a hit); the L2 load 250 to 2,000 cycles after the barrier; and
stores of one sector a warp (lanes 0-7).  Grids of 1 to 264 blocks, measured and run in the model
as constant_congestion's.  Figures: the mean window over the blocks, the mean of each launch's
longest, the SMs used.

Recorded on the H200: the LDC takes 92-100 cycles however many stores came before
(sass.constants.ldc_miss_ns), an L2 load waits behind the stores (not modelled).  Under Nsight
Compute's cache control the LDC windows are the plain run's within 3%; that second recording
(references/h200/ldc_behind_stores-ncu.json) is the --gpu run under
`ncu --cache-control all -k 'regex:^k_s(0|9|18)_(ldc|ldchit|none)$' --metrics sm__cycles_elapsed.max
simt-sim probe ldc_behind_stores --gpu --out references/h200/ldc_behind_stores-ncu.json` (ncu_recorded_windows
reads it)."""
from __future__ import annotations

import json

import numpy as np

from simt_sim.calibrate.probes.base import REFERENCES, ptx_of, windows_measured, windows_recorded, windows_simulated

MEANING = "cycles of a block's first parameter LDC (or L2 load) right after 0-18 stores a thread, 1-264 blocks"
KERNELS = "ldc_behind_stores"
FUNCTIONS = {"k_s0_none": "no stores, nothing read", "k_s9_none": "9 stores a thread, nothing read",
             "k_s0_ldc": "no stores, LDC of a cold line", "k_s3_ldc": "3 stores a thread, LDC",
             "k_s9_ldc": "9 stores a thread, LDC", "k_s18_ldc": "18 stores a thread, LDC",
             "k_s9_ldc_late": "9 stores, LDC 4,000 cycles after the barrier",
             "k_s0_ldg": "no stores, ld.global.cg of an L2 line", "k_s3_ldg": "3 stores, ld.global.cg",
             "k_s9_ldg": "9 stores, ld.global.cg", "k_s18_ldg": "18 stores, ld.global.cg",
             "k_s9_ldg_late": "9 stores, ld.global.cg 4,000 cycles after the barrier",
             "k_s0_ldchit": "no stores, LDC of the line read before", "k_s9_ldchit": "9 stores, LDC hit",
             "k_s18_ldchit": "18 stores, LDC hit",
             "k_s9_ldg_d250": "9 stores, ld.global.cg 250 cycles after the barrier",
             "k_s9_ldg_d1000": "9 stores, ld.global.cg 1,000 cycles after", "k_s9_ldg_d2000": "9 stores, 2,000 after",
             "k_s18_ldg_d1000": "18 stores, ld.global.cg 1,000 cycles after",
             "k_s9_sector_ldg": "9 one-sector stores a warp (lanes 0-7), ld.global.cg",
             "k_s18_sector_ldg": "18 one-sector stores a warp, ld.global.cg"}
GRIDS = (1, 8, 33, 66, 128, 132, 264)
SETS = {str(blocks): blocks for blocks in GRIDS}
THREADS = 256
PLANE = 1 << 17                          # words between a thread's stores (the kernel's PLANE)
FIGURES = "windows"
FIGURE_NAMES = ("mean window", "mean longest window", "SMs")
RECORDING = "h200/ldc_behind_stores.json"
ALSO_RECORDED = ("h200/ldc_behind_stores-ncu.json",)     # the --gpu run under ncu's cache control
KEYS = ("sass.constants.ldc_miss_ns",)
CHECKS = {f"{name} / {blocks}": 0.1 for name in ("k_s0_ldc", "k_s18_ldc") for blocks in (1, 132)}
recorded_rows = windows_recorded


def buffers(blocks: int) -> tuple[np.ndarray, np.ndarray]:
    return np.zeros(21 * PLANE, np.uint32), np.zeros(blocks * 4, np.int64)


def windows(blocks: int) -> int:
    """One clock row a block."""
    return blocks


def simulated(name: str, blocks: int, overrides=()) -> list[float]:
    return windows_simulated(ptx_of(KERNELS), name, blocks, THREADS, buffers, windows(blocks), overrides)


def measure() -> dict:
    return windows_measured("ldc_behind_stores", ptx_of(KERNELS), FUNCTIONS, GRIDS, THREADS, buffers, windows)


def ncu_recorded_windows() -> dict:
    """The windows of the --gpu run under ncu's cache control: {"NAME / BLOCKS": [mean, longest, sms]}."""
    return windows_recorded(json.loads((REFERENCES / ALSO_RECORDED[0]).read_text())["windows"])
