#!/usr/bin/env python
"""Does a load wait longer when its SM has more lines in flight (GPU machine)?  Seed 003's streaming
pattern (tools/latency_spread.py's `stream` kernel: warps reading consecutive lines of
x[t * n + f], one or two lines per warp and step, lane 0 timing each step) on 1, 4, 32 and 132
SMs with 1 to 32 warps each, through host-copied, flushed (DRAM) and L2-resident lines: the mean
wait per step, and how a wait goes with another warp's at the same step and with the warp's next.

    python tools/stream_load.py --out programs/validation/v-lat-l2/reference/h100-stream-load.json
    python tools/stream_load.py --model     # the model's DRAM waits beside the recorded ones (no GPU)
    python tools/stream_load.py --fit       # the memory.dram.inflight_cycles that comes closest

The model runs the same kernel (tools/kernels/stream_load.ptx and its committed cubin) with the
caches flushed, as the recording's DRAM column.
"""
from __future__ import annotations

import functools
import json
import os
from pathlib import Path

import numpy as np

from probe_output import probe_parser, write_result
from latency_spread import KERNELS, stream_waits

STEPS, SKIP = 64, 4
ROOT = Path(__file__).resolve().parents[1]
RECORDED = ROOT / "programs" / "validation" / "v-lat-l2" / "reference" / "h100-stream-load.json"
INFLIGHT = (0.0, 0.005, 0.01, 0.015, 0.02, 0.03)    # memory.dram.inflight_cycles tried by --fit


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


@functools.cache
def model_program():
    """The stream kernel as the model runs it (its committed cubin), loaded once for every row."""
    import simt_sim
    return simt_sim.load_program(str(ROOT / "tools" / "kernels" / "stream_load.ptx"), "stream", isa="sass")


def model_dram_wait(row: dict, overrides=()) -> float:
    """The model's mean wait per step for a recorded row's configuration, lines flushed to DRAM."""
    import simt_sim
    prog = model_program()
    blocks, threads, k = row["sms"], row["warps_per_sm"] * 32, row["lines_per_step"]
    n = 2 * blocks * threads
    cfg = simt_sim.load_config("h100", ["host.caches_flushed=true", *overrides])
    bufs = {"x": np.ones(n * STEPS, np.float32), "lat": np.zeros(blocks * threads // 32 * STEPS, np.int64),
            "out": np.zeros(blocks * threads, np.float32)}
    res = simt_sim.simulate(simt_sim.Launch(prog, blocks, threads, ["x", n, STEPS, k, "lat", "out"]), bufs, cfg)
    return float(res.outputs["lat"].reshape(-1, STEPS)[:, SKIP:].mean())


def fitted_inflight(rows: list[dict]) -> float:
    """The value of INFLIGHT whose DRAM waits come closest to the H100's (mean absolute error)."""
    def error(value):
        return np.mean([abs(model_dram_wait(r, (f"memory.dram.inflight_cycles={value}",)) - r["dram"]) for r in rows])
    return min(INFLIGHT, key=error)


def main() -> None:
    ap = probe_parser(__doc__)
    ap.add_argument("--model", action="store_true", help="print the model's DRAM waits beside the recording")
    ap.add_argument("--fit", action="store_true", help="print the memory.dram.inflight_cycles that fits best")
    args = ap.parse_args()
    if args.model or args.fit:
        rows = json.loads(RECORDED.read_text())["mean_wait_per_step"]
        if args.fit:
            print(f"memory.dram.inflight_cycles: {fitted_inflight(rows)}")
            return
        print(f"{'SMs':>4} {'warps/SM':>8} {'lines':>5}  DRAM wait per step: H100  model")
        for r in rows:
            print(f"{r['sms']:>4} {r['warps_per_sm']:>8} {r['lines_per_step']:>5}  {r['dram']:>22.0f} {model_dram_wait(r):6.0f}")
        return
    write_result({"tool": os.path.basename(__file__), "clock": "SM cycles at the plain launch's clock",
                  "mean_wait_per_step": measure()}, args.out)


if __name__ == "__main__":
    main()
