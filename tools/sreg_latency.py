#!/usr/bin/env python
"""How long an S2R special-register read takes: on the GPU (--gpu) and in the simulator (default).
One warp reads a register (tools/kernels/sreg_latency.cu, its PTX and the committed cubin beside it)
between two clock reads and runs the same 256 dependent IMADs on it; ptxas has read %tid.x before
the first clock already, so each span's difference from that kernel's is the S2R's latency; the
same after four global loads issued between the clock and the S2R, and two reads in the window.
A second kernel has every warp of one block (1, 4 or 32 warps) read 14 different special registers
between two clock reads: reads per cycle per SM.  With --delay, tools/kernels/sreg_delay.cu: one
warp spins a while, then times one S2R (SR_LANEID or SR_CTAID.X, the warp's first special-register
read, or SR_LANEID after an SR_TID.X read) against the same window without it: an S2R's latency
by when the warp issues it.

    python tools/sreg_latency.py --gpu --out programs/t-clock-read/reference/h100-sreg-latency.json
    python tools/sreg_latency.py --gpu --delay --out programs/t-clock-read/reference/h100-sreg-delay.json
    python tools/sreg_latency.py [--delay]  # the simulator's figures beside the recorded ones
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
PTX = ROOT / "tools" / "kernels" / "sreg_latency.ptx"
sys.path.insert(0, str(ROOT))
from probe_output import gpu_medians, simulate_block, warp_rate  # noqa: E402  (tools/, beside this file)
RECORDED = ROOT / "programs" / "t-clock-read" / "reference" / "h100-sreg-latency.json"
DELAY_PTX = ROOT / "tools" / "kernels" / "sreg_delay.ptx"
DELAY_RECORDED = ROOT / "programs" / "t-clock-read" / "reference" / "h100-sreg-delay.json"
# kernel: what its window holds beyond k_sd_none's (an add of a value the warp holds)
DELAY_KERNELS = {"k_sd_none": "nothing", "k_sd_laneid": "the warp's first S2R, SR_LANEID",
                 "k_sd_ctaid_x": "the warp's first S2R, SR_CTAID.X",
                 "k_sd_second": "S2R SR_LANEID after an S2R SR_TID.X"}
SPINS = (0, 100, 200, 400, 800, 1600, 3200, 6400)      # cycles the warp spins before the window
# kernel: (what it reads, the kernel with the same instructions but the register read before the clock)
KERNELS = {"k_sr_laneid": ("S2R SR_LANEID", "k_sr_tid_x"), "k_sr_ctaid_x": ("S2R SR_CTAID.X", "k_sr_tid_x"),
           "k_loads_sr_laneid": ("S2R SR_LANEID after 4 LDG", "k_loads_sr_tid_x"),
           "k_sr_pair": ("S2R SR_LANEID + S2UR SR_CTAID.X", None)}   # its IMAD chain is its own: spans only
WARPS = (1, 4, 32)                  # k_sr14: warps of one block, each reading 14 special registers
READS = 14
ALL = ("k_sr_tid_x", "k_loads_sr_tid_x", *KERNELS)


def gpu_spans() -> dict:
    import cupy as cp
    mod = cp.RawModule(path=str(PTX))
    out = {}
    data = cp.arange(1024, dtype=cp.uint32)
    for name in ALL:
        f = mod.get_function(name)
        clk, res = cp.zeros(2, cp.int64), cp.zeros(32, cp.uint32)
        spans = []
        for _ in range(9):                      # the first launch warms the instruction caches
            f((1,), (32,), (clk, res, data))
            cp.cuda.runtime.deviceSynchronize()
            c = clk.get()
            spans.append(int(c[1] - c[0]))
        out[name] = float(np.median(spans[1:]))
    return out


def rate(clk: np.ndarray, warps: int) -> float:
    return warp_rate(clk, warps, READS)


def gpu_rates() -> dict:
    import cupy as cp
    f = cp.RawModule(path=str(PTX)).get_function("k_sr14")
    out = {}
    for warps in WARPS:
        clk, res = cp.zeros(64, cp.int64), cp.zeros(1024, cp.uint32)
        rates = []
        for _ in range(9):
            f((1,), (32 * warps,), (clk, res))
            cp.cuda.runtime.deviceSynchronize()
            rates.append(rate(clk.get(), warps))
        out[str(warps)] = round(float(np.median(rates[1:])), 4)
    return out


def simulated_rate(warps: int) -> float:
    bufs = {"clk": np.zeros(64, np.int64), "out": np.zeros(1024, np.uint32)}
    c = simulate_block(PTX, "k_sr14", 32 * warps, ["clk", "out"], bufs).outputs["clk"]
    return round(rate(c, warps), 4)


def simulated_span(name: str) -> int:
    bufs = {"clk": np.zeros(2, np.int64), "out": np.zeros(32, np.uint32), "data": np.arange(1024, dtype=np.uint32)}
    args = ["clk", "out", "data"] if name.startswith("k_loads") else ["clk", "out"]
    c = simulate_block(PTX, name, 32, args, bufs).outputs["clk"]
    return int(c[1] - c[0])


def gpu_delays() -> dict:
    """{kernel: {spin: median window}} over eight launches after a warming one, one warp."""
    def window(cp, f, name, spin):
        clk, res = cp.zeros(3, cp.int64), cp.zeros(32, cp.uint32)
        f((1,), (32,), (clk, res, np.int32(spin)))
        cp.cuda.runtime.deviceSynchronize()
        c = clk.get()
        return [int(c[2] - c[1])]
    medians = gpu_medians(DELAY_PTX, DELAY_KERNELS, {str(spin): spin for spin in SPINS}, window, 1)
    return {name: {str(spin): medians[f"{name} / {spin}"][0] for spin in SPINS} for name in DELAY_KERNELS}


def simulated_delay(name: str, spin: int) -> int:
    bufs = {"clk": np.zeros(3, np.int64), "out": np.zeros(32, np.uint32)}
    c = simulate_block(DELAY_PTX, name, 32, ["clk", "out", spin], bufs).outputs["clk"]
    return int(c[2] - c[1])


def show_delays() -> None:
    rec = json.loads(DELAY_RECORDED.read_text())["window"]
    print(f"{'S2R latency beyond k_sd_none, by spin':<40}" + "".join(f"{s:>7}" for s in SPINS))
    sim = {name: [simulated_delay(name, spin) for spin in SPINS] for name in DELAY_KERNELS}
    for name in DELAY_KERNELS:
        if name == "k_sd_none":
            continue
        hw = [rec[name][str(s)] - rec["k_sd_none"][str(s)] for s in SPINS]
        model = [a - b for a, b in zip(sim[name], sim["k_sd_none"])]
        print(f"{name + ' H100':<40}" + "".join(f"{v:>7.0f}" for v in hw))
        print(f"{name + ' model':<40}" + "".join(f"{v:>7d}" for v in model))


def latencies(spans: dict) -> dict:
    return {name: spans[name] - spans[base] for name, (_, base) in KERNELS.items() if base}


def main() -> int:
    from probe_output import probe_parser, write_result
    ap = probe_parser(__doc__)
    ap.add_argument("--gpu", action="store_true", help="measure on the GPU (else simulate)")
    ap.add_argument("--delay", action="store_true", help="the S2R latency by when the warp issues it")
    args = ap.parse_args()
    if args.delay:
        if args.gpu:
            write_result({"tool": os.path.basename(__file__), "kernels": DELAY_KERNELS, "spins": SPINS,
                          "window": gpu_delays()}, args.out)
        else:
            show_delays()
        return 0
    if args.gpu:
        spans = gpu_spans()
        write_result({"tool": os.path.basename(__file__), "kernels": KERNELS, "spans": spans,
                      "s2r_latency": latencies(spans), "sr14_reads_per_cycle_per_sm": gpu_rates()}, args.out)
        return 0
    rec = json.loads(RECORDED.read_text())
    spans = {name: simulated_span(name) for name in ALL}
    hw, sim = rec["s2r_latency"], latencies(spans)
    print(f"{'kernel':<20} {'span H100':>9} {'model':>6}  {'S2R adds: H100':>14} {'model':>6}")
    for name in ALL:
        label, base = KERNELS.get(name, (name, None))
        added = f"{hw[name]:>14.1f} {sim[name]:>6d}" if base else ""
        print(f"{name:<20} {rec['spans'][name]:>9.0f} {spans[name]:>6d}  {added}")
    rec = rec["sr14_reads_per_cycle_per_sm"]
    print(f"\n{'14 reads per warp, warps':<32} {'H100':>6} {'model':>6}  (reads per cycle per SM)")
    for warps in WARPS:
        print(f"{warps:<32} {rec[str(warps)]:>6.3f} {simulated_rate(warps):>6.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
