#!/usr/bin/env python
"""Does a load wait longer when its SM has more lines in flight (GPU machine)?  Seed 003's streaming
pattern (tools/latency_spread.py's `stream` kernel: warps reading consecutive lines of
x[t * n + f], one or two lines per warp and step, lane 0 timing each step) on 1, 4, 32 and 132
SMs with 1 to 32 warps each, through host-copied, flushed (DRAM) and L2-resident lines: the mean
wait per step, and how a wait goes with another warp's at the same step and with the warp's next.

    python tools/stream_load.py --out programs/v-lat-l2/reference/h100-stream-load.json
"""
from __future__ import annotations

import os

import numpy as np

from probe_output import probe_parser, write_result
from latency_spread import KERNELS, stream_waits

STEPS, SKIP = 64, 4


def together(w, warps_per_sm: int) -> dict:
    """How a step's wait goes with other waits: the mean correlation of two warps of one SM over
    the same steps (None with one warp), and of a warp's consecutive steps."""
    rows = w.astype(float)
    same = []
    for sm in range(len(rows) // warps_per_sm):
        block = rows[sm * warps_per_sm:(sm + 1) * warps_per_sm]
        same += [np.corrcoef(block[i], block[j])[0, 1] for i in range(len(block)) for j in range(i + 1, min(len(block), i + 5))]
    lag = [np.corrcoef(r[:-1], r[1:])[0, 1] for r in rows]

    def mean(xs):
        return round(float(np.nanmean(xs)), 2) if xs else None
    return {"same_step_two_warps": mean(same), "next_step": mean(lag)}


def measure() -> list[dict]:
    import cupy as cp
    stream = cp.RawModule(code=KERNELS, options=("-arch=sm_90",)).get_function("stream")

    rows = []
    for blocks in (1, 4, 32, 132):
        for threads in (32, 128, 512, 1024):
            for k in (1, 2):
                n = 2 * blocks * threads
                row = {"sms": blocks, "warps_per_sm": threads // 32, "lines_per_step": k,
                       "lines_in_flight_per_sm": threads // 32 * k}
                waits = stream_waits(cp, stream, np.ones(n * STEPS, np.float32), blocks, threads, n, STEPS, k)
                row.update({c: round(float(w[:, SKIP:].mean()), 1) for c, w in waits.items()})
                row["correlations"] = {c: together(w[:, SKIP:], threads // 32) for c, w in waits.items()}
                rows.append(row)
    return rows


def main() -> None:
    args = probe_parser(__doc__).parse_args()
    write_result({"tool": os.path.basename(__file__), "clock": "SM cycles at the plain launch's clock",
                  "mean_wait_per_step": measure()}, args.out)


if __name__ == "__main__":
    main()
