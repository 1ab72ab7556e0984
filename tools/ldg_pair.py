#!/usr/bin/env python
"""When the second of a warp's two back-to-back global loads returns, alone and beside other
warps' loads: on the GPU (--gpu) and in the simulator (default).  Every running warp of one block
of 32 issues two LDG.E (one 128-byte line each, 1 MiB apart), then reads the clock once each load's
data is in (tools/kernels/ldg_pair.cu, its PTX and the committed cubin beside it).  The lines come
from DRAM (a launch on lines no launch has touched) or from L2 (the same lines a second time).
Running warps: 1; 4, one per sub-partition; 16; 32.  Figures: the running warps' mean cycles from
the first clock read until the first load's data is in (plus a shared store's read), their mean
and longest cycles from there until the second's is.

    python tools/ldg_pair.py --gpu --out programs/w-cslow-c2-w4/reference/h100-ldg-pair.json
    python tools/ldg_pair.py           # the simulator beside the recorded figures
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import gpu_name, model_probe_parser, recorded, simulate_block, write_result  # noqa: E402  (tools/, beside this file)
PTX = ROOT / "tools" / "kernels" / "ldg_pair.ptx"
RECORDED = ROOT / "programs" / "w-cslow-c2-w4" / "reference" / "h100-ldg-pair.json"
WARPS = 32
GAP = 1 << 18                           # floats between a warp's two lines (1 MiB)
SPAN = 2 * GAP                          # floats a launch's lines take
ACTIVE = {"1 warp": 0x1, "4 warps, 4 sub-partitions": 0xF, "16 warps": 0xFFFF, "32 warps": 0xFFFFFFFF}
SOURCES = ("DRAM", "L2")
RUNS = 9


def figures(times: np.ndarray, active: int) -> list[float]:
    """[mean first wait, mean second-after-first, longest second-after-first] over the running warps."""
    t = times.reshape(WARPS, 3).astype(np.int64)[[w for w in range(WARPS) if (active >> w) & 1]]
    first, second = (t[:, 1] - t[:, 0]) % (1 << 32), (t[:, 2] - t[:, 1]) % (1 << 32)
    return [round(float(first.mean()), 1), round(float(second.mean()), 1), float(second.max())]


def gpu_figures() -> dict:
    import cupy as cp
    f = cp.RawModule(path=str(PTX)).get_function("k_ldg_pair")
    x = cp.empty(SPAN * (len(ACTIVE) * len(SOURCES) * RUNS + 2), cp.float32)   # never written: not in L2
    times = cp.zeros(3 * WARPS, cp.uint32)
    out, base = {}, 0

    def launch(active: int, at: int) -> list[float]:
        f((1,), (WARPS * 32,), (x, times, np.uint32(active), np.uint64(at), np.uint64(GAP)))
        cp.cuda.runtime.deviceSynchronize()
        return figures(times.get(), active)
    for label, active in ACTIVE.items():
        for source in SOURCES:
            runs = []
            for _ in range(RUNS):
                base += SPAN
                first = launch(active, base)
                runs.append(first if source == "DRAM" else launch(active, base))
            out[f"{source} / {label}"] = np.median(np.array(runs), axis=0).round(1).tolist()
    return out


def simulated(source: str, active: int, overrides: tuple[str, ...] = ()) -> list[float]:
    bufs = {"x": np.zeros(SPAN, np.float32), "times": np.zeros(3 * WARPS, np.uint32)}
    res = simulate_block(PTX, "k_ldg_pair", WARPS * 32, ["x", "times", active, 0, GAP], bufs, overrides,
                         launches=1 if source == "DRAM" else 2)
    return figures(res.outputs["times"], active)


def main() -> int:
    args = model_probe_parser(__doc__).parse_args()
    if args.gpu:
        write_result({"tool": os.path.basename(__file__), "device": gpu_name(),
                      "gap_floats": GAP, "active": ACTIVE, "figures": gpu_figures()}, args.out)
        return 0
    rec = recorded(RECORDED, "figures")
    print(f"{'lines from':<6} {'running warps':<28} first load, second after it (mean, longest): H100 | model")
    for source in SOURCES:
        for label, active in ACTIVE.items():
            hw = " ".join(f"{v:6.1f}" for v in rec.get(f"{source} / {label}", []))
            model = " ".join(f"{v:6.1f}" for v in simulated(source, active, tuple(args.set)))
            print(f"{source:<6} {label:<28} {hw:>20} | {model}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
