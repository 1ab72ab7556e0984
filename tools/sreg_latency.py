#!/usr/bin/env python
"""How long an S2R special-register read takes: on the GPU (--gpu) and in the simulator (default).
One warp reads a register (tools/kernels/sreg_latency.cu, its PTX and the committed cubin beside it)
between two clock reads and runs the same 256 dependent IMADs on it; ptxas has read %tid.x before
the first clock already, so each span's difference from that kernel's is the S2R's latency; the
same after four global loads issued between the clock and the S2R, and two reads in the window.
A second kernel has every warp of one block (1, 4 or 32 warps) read 14 different special registers
between two clock reads: reads per cycle per SM.

    python tools/sreg_latency.py --gpu --out programs/t-clock-read/reference/h100-sreg-latency.json
    python tools/sreg_latency.py            # the simulator's latencies beside the recorded ones
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
from probe_output import simulate_block, warp_rate  # noqa: E402  (tools/, beside this file)
RECORDED = ROOT / "programs" / "t-clock-read" / "reference" / "h100-sreg-latency.json"
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


def latencies(spans: dict) -> dict:
    return {name: spans[name] - spans[base] for name, (_, base) in KERNELS.items() if base}


def main() -> int:
    from probe_output import probe_parser, write_result
    ap = probe_parser(__doc__)
    ap.add_argument("--gpu", action="store_true", help="measure on the GPU (else simulate)")
    args = ap.parse_args()
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
