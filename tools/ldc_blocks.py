#!/usr/bin/env python
"""Which blocks pay an LDC's first read of a parameter line, on the GPU (--gpu; the model has no
constant cache, so no simulator side).  tools/kernels/ldc_blocks.cu (its PTX and the committed cubin
beside it): 528 one-warp blocks, each holding 120 KiB of shared memory so that an SM runs its blocks
one after the other, time their first store through a pointer formed in the window from a kernel
parameter (k_lcb_first: LDC.64 c[0x0][0x210], IMAD.WIDE) or before it (k_lcb_none).  The blocks of
each SM are ranked by start (its clock); figures: the mean window by rank (the first block on its
SM, the second, ...), for the first of 9 launches and the median of the other 8.

    python tools/ldc_blocks.py --gpu --out programs/probes/t-diverge-w8/reference/h100-ldc-blocks.json
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import gpu_name, probe_parser, write_result  # noqa: E402  (tools/, beside this file)
PTX = ROOT / "tools" / "kernels" / "ldc_blocks.ptx"
BLOCKS, SHARED, RANKS = 528, 120 * 1024, 4


def by_rank(clk: np.ndarray) -> list[float]:
    """The mean window of the blocks that started first, second, ... on their SM."""
    c = clk.reshape(BLOCKS, 3).astype(np.int64)
    windows: list[list[int]] = [[] for _ in range(RANKS)]
    for sm in np.unique(c[:, 2]):
        mine = c[c[:, 2] == sm]
        for rank, row in enumerate(mine[np.argsort(mine[:, 0])][:RANKS]):
            windows[rank].append(int(row[1] - row[0]))
    return [round(float(np.mean(w)), 1) if w else float("nan") for w in windows]


def main() -> int:
    ap = probe_parser(__doc__)
    ap.parse_args()
    import cupy as cp
    args = ap.parse_args()
    mod = cp.RawModule(path=str(PTX))
    result = {}
    for name in ("k_lcb_none", "k_lcb_first"):
        f = mod.get_function(name)
        f.max_dynamic_shared_size_bytes = SHARED
        runs = []
        for _ in range(9):
            out, clk = cp.zeros(BLOCKS * 32, cp.float32), cp.zeros(3 * BLOCKS, cp.int64)
            f((BLOCKS,), (32,), (out, clk), shared_mem=SHARED)
            cp.cuda.runtime.deviceSynchronize()
            runs.append(by_rank(clk.get()))
        result[name] = {"first launch": runs[0], "later launches (median)": np.median(runs[1:], axis=0).round(1).tolist()}
    write_result({"tool": os.path.basename(__file__), "device": gpu_name(), "blocks": BLOCKS,
                  "window_by_rank_on_sm": result}, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
