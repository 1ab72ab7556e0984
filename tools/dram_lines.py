#!/usr/bin/env python
"""How fast one SM gets lines from DRAM by how far apart they lie: on the GPU (--gpu) and in the
simulator (default).  tools/kernels/dram_lines.cu (its PTX and the committed cubin beside it): the
first W warps of one block each load one 128-byte line, `stride` bytes after the previous warp's,
all at once; each warp times its own load.  Lines a launch read before and a 256 MiB read pushed
out of L2 (DRAM, as a profiled workload's inputs: Nsight Compute flushes the caches before each
pass; a read, so that no dirty line is written back while the lines load), then the same lines
again (L2).  Figures per stride and W: the warps' mean, shortest and
longest load, and the cycles from the first warp's data to the last's (the median of 5 launches,
each at another base).

    python tools/dram_lines.py --gpu --out programs/workloads/w-cslow-c2-w4/reference/h100-dram-lines.json
    python tools/dram_lines.py           # the simulator beside the recorded figures
    python tools/dram_lines.py --fit     # memory.dram.latency_spread_ns and refresh_* from the recording
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from simt_sim.machine.config import dram_refresh_mean_ns  # noqa: E402
from probe_output import beside, gpu_name, model_probe_parser, recorded, simulate_block, write_result  # noqa: E402
PTX = ROOT / "tools" / "kernels" / "dram_lines.ptx"
RECORDED = ROOT / "programs" / "workloads" / "w-cslow-c2-w4" / "reference" / "h100-dram-lines.json"
STRIDES = (128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 1 << 18, 1 << 20, 1 << 21, 1 << 22)
WARPS = (1, 8, 16, 32)
SOURCES = ("DRAM", "L2")
RUNS = 5
BASE_STEP = 1 << 15                     # bytes between the runs' first lines
LINE_STRIDES, LINE_BASES, REPEATS = (128, 1024, 4096), 8, 3
GROUP_SPLIT, THRESHOLD = 680, 150       # --fit: cycles between near and far lines; a repeat's excess counted as a refresh


def key(source: str, stride: int, warps: int) -> str:
    return f"{source} / {stride} / {warps}"


def figures(times: np.ndarray, warps: int) -> list[float]:
    """[mean, shortest, longest load, first data to last] over the warps."""
    t = times.reshape(-1, 2)[:warps].astype(np.int64)
    lat = (t[:, 1] - t[:, 0]) % (1 << 32)
    end = (t[:, 1] - t[0, 0]) % (1 << 32)
    return [round(float(lat.mean()), 1), float(lat.min()), float(lat.max()), float(end.max() - end.min())]


def measure() -> dict:
    import cupy as cp
    f = cp.RawModule(path=str(PTX)).get_function("k_dram_lines")
    x = cp.zeros((max(STRIDES) * max(WARPS) + RUNS * BASE_STEP) // 4, cp.float32)
    times = cp.zeros(2 * 32, cp.uint32)
    junk = cp.ones(1 << 26, cp.float32)                 # 256 MiB, read to push the lines out of L2
    cp.cuda.runtime.deviceSynchronize()
    out = {}
    for stride in STRIDES:
        for warps in WARPS:
            runs = {s: [] for s in SOURCES}
            for run in range(RUNS):
                args = (x[run * BASE_STEP // 4:], times, np.uint64(stride // 4), np.int32(warps))
                f((1,), (1024,), args)                  # the lines read once
                float(junk.sum())                       # clean lines only: no write-backs during the loads
                for source in SOURCES:
                    f((1,), (1024,), args)
                    cp.cuda.runtime.deviceSynchronize()
                    runs[source].append(figures(times.get(), warps))
            for source in SOURCES:
                out[key(source, stride, warps)] = np.median(np.array(runs[source]), axis=0).round(1).tolist()
            print(stride, warps, {s: out[key(s, stride, warps)] for s in SOURCES}, flush=True)
    return {"tool": os.path.basename(__file__), "device": gpu_name(), "clock": "SM cycles at the plain launch's clock",
            "figures": out, "per_line": per_line(cp, f, x, times, junk)}


def per_line(cp, f, x, times, junk) -> dict:
    """Each of 32 warps' DRAM load, lines LINE_STRIDES apart from LINE_BASES bases, REPEATS times
    over (L2 pushed out before each): does a line keep its latency?  {stride: [base][repeat][warp]}."""
    out = {}
    for stride in LINE_STRIDES:
        rows = []
        for b in range(LINE_BASES):
            args = (x[b * (1 << 20) // 4:], times, np.uint64(stride // 4), np.int32(32))
            f((1,), (1024,), args)
            reps = []
            for _ in range(REPEATS):
                float(junk.sum())
                f((1,), (1024,), args)
                cp.cuda.runtime.deviceSynchronize()
                t = times.get().reshape(-1, 2).astype(np.int64)
                reps.append(((t[:, 1] - t[:, 0]) % (1 << 32)).tolist())
            rows.append(reps)
        out[str(stride)] = rows
        print("per line", stride, flush=True)
    return out


def fit(per_line: dict, mhz: float = 1980.0) -> dict:
    """memory.dram's spread and refresh from the per-line recording (strides of 1 KiB and more, so
    that each line is its own sample).  A line keeps its latency across repeats but for the odd
    one far longer: its median is its place, near or far (two groups around GROUP_SPLIT cycles);
    what a repeat takes beyond it is a refresh, assumed uniform over [0, D) in a share P of the
    loads.  Of the excesses over THRESHOLD cycles (the smaller ones are noise), the mean is
    (D + THRESHOLD) / 2 and the share P (D - THRESHOLD) / D.  The refresh adds P D / 2 to the mean
    load, which the DRAM latency (a chase's mean) already holds: `latency_ns_less` says how much
    to take off it.  How the slow lines cluster in a launch gives `refresh_units`."""
    a = np.concatenate([np.array(rows, float).transpose(0, 2, 1).reshape(-1, REPEATS)
                        for stride, rows in per_line.items() if int(stride) >= 1024])
    med = np.median(a, axis=1)
    near, far = med[med < GROUP_SPLIT], med[(med >= GROUP_SPLIT) & (med < GROUP_SPLIT + 270)]
    excess = (a - med[:, None]).ravel()
    above = excess[excess > THRESHOLD]
    d = 2 * above.mean() - THRESHOLD
    share = len(above) / len(excess) * d / (d - THRESHOLD)
    ns = 1000.0 / mhz
    slow = [(np.array(rows, float) - np.median(np.array(rows, float), axis=1, keepdims=True) > THRESHOLD).sum(axis=2).ravel()
            for stride, rows in per_line.items() if int(stride) >= 1024]
    refresh, interval = round(d * ns), round(d / share * ns)
    return {"refresh_units": refresh_units(np.concatenate(slow)),
            "near_cycles": round(float(near.mean())), "far_cycles": round(float(far.mean())),
            "far_share": round(len(far) / (len(near) + len(far)), 3),
            "latency_spread_ns": [round(float(near.mean() - far.mean()) / 2 * ns, 1),
                                  round(float(far.mean() - near.mean()) / 2 * ns, 1)],
            "refresh_ns": refresh, "refresh_interval_ns": interval,
            "latency_ns_less": round(dram_refresh_mean_ns(interval, refresh), 1)}


def refresh_units(slow_per_launch: np.ndarray, lines: int = 32) -> int:
    """How many refresh groups (memory.dram.refresh_units) make the count of a launch's slow lines
    spread as the H100's: with the lines hashed into U groups, each slow or not as a whole (the
    recorded share), the U whose simulated counts have the recorded variance (independent lines
    would give a binomial's, 3-4 times smaller)."""
    rng = np.random.default_rng(0)
    share, want = slow_per_launch.mean() / lines, slow_per_launch.var()
    best, gap = 0, np.inf
    for units in range(2, 65):
        counts = [(rng.random(units) < share)[rng.integers(0, units, lines)].sum() for _ in range(4000)]
        if abs(np.var(counts) - want) < gap:
            best, gap = units, abs(np.var(counts) - want)
    return best


def simulated(source: str, stride: int, warps: int, overrides=()) -> list[float]:
    bufs = {"x": np.zeros(stride * warps // 4 + 32, np.float32), "times": np.zeros(64, np.uint32)}
    res = simulate_block(PTX, "k_dram_lines", 1024, ["x", "times", stride // 4, warps], bufs,
                         ["host.caches_flushed=true", *overrides], launches=1 if source == "DRAM" else 2)
    return figures(res.outputs["times"], warps)


def main() -> int:
    ap = model_probe_parser(__doc__)
    ap.add_argument("--fit", action="store_true", help="memory.dram's spread and refresh from the recording")
    args = ap.parse_args()
    if args.gpu:
        write_result(measure(), args.out)
        return 0
    if args.fit:
        import json
        print(json.dumps(fit(json.loads(RECORDED.read_text())["per_line"]), indent=1))
        return 0
    rec = recorded(RECORDED, "figures")
    print(f"{'lines':<5} {'stride':>8} {'warps':>5}  mean, shortest, longest load, first to last: H100 | model")
    for source in SOURCES:
        for stride in STRIDES:
            for warps in WARPS:
                print(f"{source:<5} {stride:>8} {warps:>5}  " + beside(rec.get(key(source, stride, warps), []),
                                                                  simulated(source, stride, warps, tuple(args.set)),
                                                                  "6.0f", 27))
    return 0


if __name__ == "__main__":
    sys.exit(main())
