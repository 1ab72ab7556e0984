#!/usr/bin/env python
"""What a block's first read of a parameter line costs right after its threads' stores, on the GPU
(--gpu) and in the simulator (default).  tools/kernels/ldc_behind_stores.cu (its PTX and the
committed cubin beside it): blocks of 256 threads, one an SM, each thread storing 0, 3, 9 or 18
words (a warp's store one line), a barrier, then thread 0's window: the clock, a read (none; an LDC
of a parameter line nothing has read; an ld.global.cg of a line the block loaded before its
stores), a store of what it read, the clock.  The workloads' epilogues read their clock pointer so
(w-regroup-lbm-*: nine stores a thread, then LDC.64 c[0x0][0x240]).  Also: an LDC of the line
thread 0 read before its stores (a hit); the L2 load 250 to 2,000 cycles after the barrier; and
stores of one sector a warp (lanes 0-7).  Grids of 1 to 264 blocks;
9 launches, the first dropped (constant_congestion.measure_windows).  Figures: the mean window over the blocks and the mean of each
launch's longest, medians over the launches.

    python tools/ldc_behind_stores.py --gpu --out programs/probes/launch-empty/reference/h100-ldc-behind-stores.json
    python tools/ldc_behind_stores.py            # the simulator beside the recorded figures
    ncu --cache-control all -k 'regex:^k_s(0|9|18)_(ldc|ldchit|none)$' --metrics sm__cycles_elapsed.max \
        python tools/ldc_behind_stores.py --gpu --out programs/probes/launch-empty/reference/h100-ldc-behind-stores-ncu.json
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from constant_congestion import measure_windows, print_windows, simulated_windows  # noqa: E402  (tools/, beside this file)
from probe_output import model_probe_parser, write_result  # noqa: E402
PTX = ROOT / "tools" / "kernels" / "ldc_behind_stores.ptx"
RECORDED = ROOT / "programs" / "probes" / "launch-empty" / "reference" / "h100-ldc-behind-stores.json"
KERNELS = {"k_s0_none": "no stores, nothing read", "k_s9_none": "9 stores a thread, nothing read",
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
THREADS = 256
PLANE = 1 << 17                          # words between a thread's stores (the kernel's PLANE)


def figures(clk: np.ndarray, blocks: int) -> dict:
    """{"mean", "longest", "sms"} of one launch's windows (clk rows: t0, t1, %smid, unused)."""
    rows = clk.reshape(-1, 4)[:blocks].astype(np.int64)
    w = rows[:, 1] - rows[:, 0]
    return {"mean": float(w.mean()), "longest": float(w.max()), "sms": int(len(np.unique(rows[:, 2])))}


def buffers(blocks: int) -> tuple[np.ndarray, np.ndarray]:
    return np.zeros(21 * PLANE, np.uint32), np.zeros(blocks * 4, np.int64)


def measure() -> dict:
    return measure_windows(os.path.basename(__file__), PTX, KERNELS, GRIDS, THREADS, buffers, figures)


def simulated(name: str, blocks: int, overrides=()) -> dict:
    return simulated_windows(PTX, name, blocks, THREADS, buffers, figures, overrides)


def main() -> int:
    ap = model_probe_parser(__doc__)
    args = ap.parse_args()
    if args.gpu:
        write_result(measure(), args.out)
        return 0
    print_windows(RECORDED, KERNELS, GRIDS, simulated, tuple(args.set))
    return 0


if __name__ == "__main__":
    sys.exit(main())
