#!/usr/bin/env python
"""Back-to-back empty kernels in one CUDA stream, timed with events (GPU machine): after a spin
kernel that keeps the stream busy until every launch is queued, events around N empty launches
(one warp each), N = 1 to 32, 20 timed runs after 5 warm-ups, five rounds.  The least-squares slope of
each round's medians is what one more kernel in a stream costs; the median round is kept.

    python tools/launch_sequence.py --out programs/probes/t-launch-1/reference/h100-launch-sequence.json
    python tools/launch_sequence.py --fit   # the model beside it, and the sass.stream_kernel_gap that matches (PTX runs: sm.stream_kernel_gap, fitted before stop 40 with the PTX launch latency)

The model runs the same empty kernel (tools/kernels/launch_sequence.ptx and its committed cubin).
"""
from __future__ import annotations

import json
import statistics
from pathlib import Path

from probe_output import probe_parser, write_result

ROOT = Path(__file__).resolve().parents[1]
RECORDED = ROOT / "programs" / "probes" / "t-launch-1" / "reference" / "h100-launch-sequence.json"

KERNELS = r'''
extern "C" __global__ void empty_k() {}
extern "C" __global__ void spin(long long cycles) { long long t0 = clock64(); while (clock64() - t0 < cycles) {} }
'''
COUNTS = (1, 2, 4, 8, 16, 32)
RUNS, WARMUP = 25, 5
ROUNDS = 5                 # the slope moves by about 10% from one round to the next
SPIN_CYCLES = 4_000_000     # 2 ms at 1980 MHz: longer than the host takes to queue 32 launches


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
            spin((1,), (1,), (np.int64(SPIN_CYCLES),))
            start.record(stream)
            for _ in range(n):
                empty((1,), (32,), ())
            stop.record(stream)
        stop.synchronize()
        if run >= WARMUP:
            times.append(cp.cuda.get_elapsed_time(start, stop) * 1000.0)
    return times


def model_cycles_per_further_kernel(overrides=()) -> float:
    """What one more empty kernel of a stream adds in the model (h100, SASS)."""
    import simt_sim
    prog = simt_sim.load_program(str(ROOT / "tools" / "kernels" / "launch_sequence.ptx"), "empty_k", isa="sass")
    cfg = simt_sim.load_config("h100", list(overrides))
    one, eight = (simt_sim.simulate([simt_sim.Launch(prog, 1, 32, [])] * n, {}, cfg).cycles for n in (1, 8))
    return (eight - one) / 7


def fitted_gap() -> tuple[float, float, int]:
    """(the H100's cycles per further kernel at the plain clock, the model's without a gap, the gap)."""
    import simt_sim
    mhz = simt_sim.load_config("h100").get("clock_mhz")
    h100 = json.loads(RECORDED.read_text())["us_per_further_kernel"] * mhz
    model = model_cycles_per_further_kernel(("sass.stream_kernel_gap=0",))
    return h100, model, max(0, round(h100 - model))


def main() -> None:
    ap = probe_parser(__doc__)
    ap.add_argument("--fit", action="store_true", help="print the model beside the recording (no GPU)")
    args = ap.parse_args()
    if args.fit:
        h100, model, gap = fitted_gap()
        print(f"one more kernel of a stream: H100 {h100:.0f} cycles, model without a gap {model:.0f}: "
              f"sass.stream_kernel_gap: {gap}")
        return
    rounds = [{str(n): event_times_us(n) for n in COUNTS} for _ in range(ROUNDS)]
    slopes = [round(statistics.linear_regression(COUNTS, [statistics.median(r[str(n)]) for n in COUNTS]).slope, 3)
              for r in rounds]
    write_result({"kernel": "empty, one warp, back to back in one stream", "event_us": rounds,
                  "slopes_us": slopes, "us_per_further_kernel": statistics.median(slopes)}, args.out)


if __name__ == "__main__":
    main()
