"""Does a load wait longer when the GPU has more lines in flight?  Seed 003's streaming pattern
(tools/kernels/stream_load.cu, also tools/latency_spread.py's `stream`): warps read consecutive
lines of x[t * n + f], one or two lines per warp and step, lane 0 timing each of 64 steps, on 1, 4,
32 and 132 SMs (one block each) of 1 to 32 warps.  On the GPU through host-copied, flushed (DRAM)
and L2-resident lines: the mean wait per step after the first 4, and how a wait goes with another
warp's at the same step and with the warp's next (the recording's correlations).  The model runs
the same grid on the whole h100 config with its caches flushed: the DRAM column, a row's figure.

Recorded on the H100: a step waits 718 cycles with 132 SMs of one warp and one line, 1,023 with
16 warps of two lines each (4,224 lines in flight); memory.dram.inflight_cycles 0.02 (cycles a DRAM
load waits longer per sector of loads in flight) gives 701 and 1,043 (--fit on those two rows;
tools/stream_load.py --fit ran all 32 rows for each of the six values, minutes each)."""
from __future__ import annotations

import numpy as np

STEPS, SKIP = 64, 4
GRID = [(sms, threads // 32, k) for sms in (1, 4, 32, 132) for threads in (32, 128, 512, 1024) for k in (1, 2)]
MEANING = "mean wait per step of warps streaming flushed lines, 1-132 SMs of 1-32 warps, 1 or 2 lines a step"
KERNELS = "stream_load"
FUNCTIONS = {"stream": "x[t * n + f], lane 0 times each step"}


def label(sms: int, warps: int, lines: int) -> str:
    return f"{sms} SMs, {warps} warp{'s' if warps > 1 else ''}, {lines} line{'s' if lines > 1 else ''}"


SETS = {label(*g): g for g in GRID}
FIGURES, FIGURE_NAMES = "mean_wait_per_step", ("mean DRAM wait per step",)
RECORDING = "h100/stream_load.json"
KEYS = ("memory.dram.inflight_cycles",)
FIT = {"memory.dram.inflight_cycles": (0.0, 0.005, 0.01, 0.015, 0.02, 0.03)}
FIT_ROWS = ("stream / " + label(132, 1, 1), "stream / " + label(132, 16, 2))


def recorded_rows(rows: list) -> dict:
    """{"stream / SETS": [DRAM wait]} from the recording's list of rows (host, dram, l2 and correlations each)."""
    return {f"stream / {label(r['sms'], r['warps_per_sm'], r['lines_per_step'])}": [r["dram"]] for r in rows}


def simulated(name: str, grid: tuple, overrides=()) -> list[float]:
    """The model's mean wait per step (after the first SKIP) of the grid on the whole h100 config,
    lines flushed to DRAM."""
    from simt_sim.calibrate.probes.base import ptx_of, run_block
    blocks, warps, k = grid
    threads, n = warps * 32, 2 * blocks * warps * 32
    bufs = {"x": np.ones(n * STEPS, np.float32), "lat": np.zeros(blocks * warps * STEPS, np.int64),
            "out": np.zeros(blocks * threads, np.float32)}
    out = run_block(ptx_of(KERNELS), name, threads, ["x", n, STEPS, k, "lat", "out"], bufs, overrides, grid=blocks,
                    machine=("host.caches_flushed=true",))
    return [float(out["lat"].reshape(-1, STEPS)[:, SKIP:].mean())]


# the GPU side (cupy); tools/latency_spread.py, host_load.py and span_conditions.py flush L2 and stream the same way
def flush_l2(cp) -> None:
    """Push everything out of the 50 MB L2 with a 256 MiB write."""
    junk = cp.zeros(1 << 28, cp.uint8)
    junk += 1
    cp.cuda.runtime.deviceSynchronize()


def stream_waits(cp, stream, data, blocks: int, threads: int, n: int, steps: int, k: int) -> dict:
    """The `stream` kernel's waits ([warps, steps]) through lines the host has just copied in,
    flushed lines and L2-resident lines (a first launch reads them in)."""
    waits = {}
    for cond in ("host", "dram", "l2"):
        flush_l2(cp)
        x = cp.asarray(data)
        cp.cuda.runtime.deviceSynchronize()
        if cond == "dram":
            flush_l2(cp)
        lat, res = cp.zeros(blocks * threads // 32 * steps, cp.int64), cp.zeros(blocks * threads, cp.float32)
        for _ in range(2 if cond == "l2" else 1):
            stream((blocks,), (threads,), (x, np.int32(n), np.int32(steps), np.int32(k), lat, res))
        cp.cuda.runtime.deviceSynchronize()
        waits[cond] = lat.get().reshape(-1, steps)
    return waits


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


def measure() -> dict:
    """On the GPU: every grid's mean waits (host, DRAM, L2 lines) and their correlations."""
    import cupy as cp
    from simt_sim.calibrate.probes.base import KERNELS_DIR, gpu_name
    stream = cp.RawModule(code=(KERNELS_DIR / f"{KERNELS}.cu").read_text(), options=("-arch=sm_90",)).get_function("stream")
    rows = []
    for blocks, warps, k in GRID:
        threads, n = warps * 32, 2 * blocks * warps * 32
        row = {"sms": blocks, "warps_per_sm": warps, "lines_per_step": k, "lines_in_flight_per_sm": warps * k}
        waits = stream_waits(cp, stream, np.ones(n * STEPS, np.float32), blocks, threads, n, STEPS, k)
        row.update({c: round(float(w[:, SKIP:].mean()), 1) for c, w in waits.items()})
        row["correlations"] = {c: together(w[:, SKIP:], warps) for c, w in waits.items()}
        rows.append(row)
        print(label(blocks, warps, k), {c: row[c] for c in waits}, flush=True)
    return {"probe": "stream_load", "device": gpu_name(), "clock": "SM cycles at the plain launch's clock", FIGURES: rows}
