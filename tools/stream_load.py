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
from latency_spread import KERNELS

STEPS, SKIP = 64, 4


def measure() -> list[dict]:
    import cupy as cp
    import numpy as np
    stream = cp.RawModule(code=KERNELS, options=("-arch=sm_90",)).get_function("stream")

    def flush():
        junk = cp.zeros(1 << 28, cp.uint8)
        junk += 1
        cp.cuda.runtime.deviceSynchronize()

    rows = []
    for blocks in (1, 4, 32, 132):
        for threads in (32, 128, 512, 1024):
            for k in (1, 2):
                n = 2 * blocks * threads
                data = np.ones(n * STEPS, np.float32)
                row = {"sms": blocks, "warps_per_sm": threads // 32, "lines_per_step": k,
                       "lines_in_flight_per_sm": threads // 32 * k}
                for cond in ("host", "dram", "l2"):
                    flush()
                    x = cp.asarray(data)
                    cp.cuda.runtime.deviceSynchronize()
                    if cond == "dram":
                        flush()
                    lat, res = cp.zeros(blocks * threads // 32 * STEPS, cp.int64), cp.zeros(blocks * threads, cp.float32)
                    for _ in range(2 if cond == "l2" else 1):
                        stream((blocks,), (threads,), (x, np.int32(n), np.int32(STEPS), np.int32(k), lat, res))
                    cp.cuda.runtime.deviceSynchronize()
                    row[cond] = round(float(lat.get().reshape(-1, STEPS)[:, SKIP:].mean()), 1)
                rows.append(row)
    return rows


def main() -> None:
    args = probe_parser(__doc__).parse_args()
    write_result({"tool": os.path.basename(__file__), "clock": "SM cycles at the plain launch's clock",
                  "mean_wait_per_step": measure()}, args.out)


if __name__ == "__main__":
    main()
