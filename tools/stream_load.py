#!/usr/bin/env python
"""Does a load wait longer when its SM has more lines in flight (GPU machine)?  Seed 003's streaming
pattern (tools/latency_spread.py's `stream` kernel: warps reading consecutive lines of
x[t * n + f], one or two lines per warp and step, lane 0 timing each step) on 1, 4, 32 and 132
SMs with 1 to 32 warps each, through host-copied, flushed (DRAM) and L2-resident lines.

    python tools/stream_load.py --out programs/v-lat-l2/reference/h100-stream-load.json
"""
from __future__ import annotations

import os

from probe_output import probe_parser, write_result
from latency_spread import KERNELS, stream_waits

STEPS, SKIP = 64, 4


def measure() -> list[dict]:
    import cupy as cp
    import numpy as np
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
                rows.append(row)
    return rows


def main() -> None:
    args = probe_parser(__doc__).parse_args()
    write_result({"tool": os.path.basename(__file__), "clock": "SM cycles at the plain launch's clock",
                  "mean_wait_per_step": measure()}, args.out)


if __name__ == "__main__":
    main()
