#!/usr/bin/env python
"""Back-to-back empty kernels in one CUDA stream, timed with events (GPU machine): after a spin
kernel that keeps the stream busy until every launch is queued, events around N empty launches
(one warp each), N = 1 to 32, 20 timed runs after 5 warm-ups.  The least-squares slope of the
medians is what one more kernel in a stream costs.

    python tools/launch_sequence.py --out programs/t-launch-1/reference/h100-launch-sequence.json
"""
from __future__ import annotations

import argparse
import json
import statistics

KERNELS = r'''
extern "C" __global__ void empty_k() {}
extern "C" __global__ void spin(long long cycles) { long long t0 = clock64(); while (clock64() - t0 < cycles) {} }
'''
COUNTS = (1, 2, 4, 8, 16, 32)
RUNS, WARMUP = 25, 5


def event_times_us(n: int) -> list[float]:
    import cupy as cp
    import numpy as np
    module = cp.RawModule(code=KERNELS, options=("-arch=sm_90",))
    empty, spin = module.get_function("empty_k"), module.get_function("spin")
    stream = cp.cuda.Stream(non_blocking=True)
    times = []
    for run in range(RUNS):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        with stream:
            spin((1,), (1,), (np.int64(200_000),))
            start.record(stream)
            for _ in range(n):
                empty((1,), (32,), ())
            stop.record(stream)
        stop.synchronize()
        if run >= WARMUP:
            times.append(cp.cuda.get_elapsed_time(start, stop) * 1000.0)
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="write the JSON here (else print it)")
    args = ap.parse_args()
    times = {str(n): event_times_us(n) for n in COUNTS}
    medians = [statistics.median(times[str(n)]) for n in COUNTS]
    slope = statistics.linear_regression(COUNTS, medians).slope
    text = json.dumps({"kernel": "empty, one warp, back to back in one stream", "event_us": times,
                       "us_per_further_kernel": round(slope, 3)}, indent=1)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
