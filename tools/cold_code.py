#!/usr/bin/env python
"""How long a warp's first pass over a block of code takes against its later passes: on the GPU
(--gpu) and in the simulator (default).  tools/kernels/cold_code.cu's k_cold_code (its PTX and the
committed cubin beside it) runs 4 passes of a straight-line block of 128 independent FFMAs (8
chains, 16 code lines of 128 bytes) between two clock reads; one block of 1 warp, or of 4 (one a
sub-partition).  The GPU runs 9 launches: the first (the code new to the GPU) is kept apart from
the median of the others.

Figures: the mean over warps of each pass's cycles.

    python tools/cold_code.py --gpu --out programs/probes/t-icache-512/reference/h100-cold-code.json
    python tools/cold_code.py            # the simulator beside the recorded figures
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import gpu_name, model_probe_parser, recorded, simulate_block, write_result  # noqa: E402  (tools/, beside this file)
PTX = ROOT / "tools" / "kernels" / "cold_code.ptx"
RECORDED = ROOT / "programs" / "probes" / "t-icache-512" / "reference" / "h100-cold-code.json"
PASSES = 4
WARP_SETS = {"1 warp": 32, "4 warps": 128}
A, B = np.float32(0.999), np.float32(0.001)


def passes(clk, threads: int) -> list[float]:
    """Each pass's mean cycles over the block's warps."""
    c = np.asarray(clk)[: threads // 32 * PASSES * 2].reshape(-1, PASSES, 2).astype(np.int64)
    return [round(float(v), 1) for v in (c[:, :, 1] - c[:, :, 0]).mean(axis=0)]


def gpu_passes() -> dict:
    import cupy as cp
    f = cp.RawModule(path=str(PTX)).get_function("k_cold_code")
    out = {}
    for label, threads in WARP_SETS.items():
        runs = []
        for _ in range(9):
            clk, res = cp.zeros(2 * PASSES * 32, cp.int64), cp.zeros(1024, cp.float32)
            f((1,), (threads,), (clk, res, np.int32(PASSES), A, B))
            cp.cuda.runtime.deviceSynchronize()
            runs.append(passes(clk.get(), threads))
        out[label] = {"first launch": runs[0], "later launches (median)": np.median(runs[1:], axis=0).round(1).tolist()}
    return out


def simulated(threads: int, overrides=()) -> list[float]:
    bufs = {"clk": np.zeros(2 * PASSES * 32, np.int64), "out": np.zeros(1024, np.float32)}
    res = simulate_block(PTX, "k_cold_code", threads, ["clk", "out", np.int32(PASSES), A, B], bufs, overrides)
    return passes(res.outputs["clk"], threads)


def main() -> int:
    ap = model_probe_parser(__doc__)
    args = ap.parse_args()
    if args.gpu:
        write_result({"tool": os.path.basename(__file__), "device": gpu_name(), "passes_cycles": gpu_passes()}, args.out)
        return 0
    hw = recorded(RECORDED, "passes_cycles")
    print("mean cycles of each pass over the 128-FFMA block: H100 (first launch; later launches) | model")
    for label, threads in WARP_SETS.items():
        h = hw.get(label, {})
        first, later = h.get("first launch", ["-"] * PASSES), h.get("later launches (median)", ["-"] * PASSES)
        for p, m in enumerate(simulated(threads, tuple(args.set))):
            print(f"{label:<8} pass {p}  {first[p]!s:>8} {later[p]!s:>8} | {m}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
