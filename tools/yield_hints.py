#!/usr/bin/env python
"""Yield hints and a busy scheduler's fairness, with independent chains: t-fp64-issue-f0's loop (8
independent FMUL chains per thread, 8 warps per sub-partition, 256 iterations; ptxas sets the yield
hint on the loop's last FMUL only) run from three committed cubins: as ptxas made it
(tools/kernels/yield_f0), with the hint set on every FMUL (yield_f0_all) and with none in the loop
(yield_f0_none; their sass-patch.yaml files).  Each warp records its start and end; printed: the
span and each scheduler slot's mean end (warp w sits in slot w // 4 of sub-partition w % 4).
tools/warp_ends.py --yield-hints does the same for dependent chains.

    python tools/yield_hints.py --gpu --out programs/t-fp64-issue-f0/reference/h100-yield-hints.json
    python tools/yield_hints.py [--set scheduler.policy=gwf]     # the model beside the recording
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

from simt_sim.frontend.sass import committed_cubin_path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import gpu_medians, model_probe_parser, recorded, simulate_block, slot_means, write_result  # noqa: E402  (tools/, beside this file)

KERNELS = ROOT / "tools" / "kernels"
VARIANTS = {"ptxas's hints": "yield_f0", "a hint on every FMUL": "yield_f0_all", "no hint in the loop": "yield_f0_none"}
RECORDED = ROOT / "programs" / "t-fp64-issue-f0" / "reference" / "h100-yield-hints.json"
THREADS, ITERS = 1024, 256
SETS = {"8 warps/SMSP": THREADS}


def args() -> list:
    return ["inp", "out32", "out64", "clk", np.float32(0.9999), np.float64(0.9999), np.uint32(1664525), np.int32(ITERS)]


def buffers() -> dict:
    return {"inp": np.random.default_rng(3).uniform(0.9, 1.1, THREADS).astype(np.float32),
            "out32": np.zeros(THREADS, np.float32), "out64": np.zeros(THREADS, np.float64),
            "clk": np.zeros(64, np.int64)}


def figures(clk) -> list[float]:
    """The span from the first start, then each warp's end."""
    c = np.asarray(clk)[: 2 * THREADS // 32].reshape(-1, 2).astype(np.int64)
    ends = c[:, 1] - c[:, 0].min()
    return [float(ends.max()), *map(float, ends)]


def slot_ends(fig: list[float]) -> np.ndarray:
    """Each scheduler slot's mean end, from the span and every warp's end."""
    return slot_means(fig[1:])


def launch(cp, f, name: str, threads: int) -> list[float]:
    b = {k: cp.asarray(v) for k, v in buffers().items()}
    f((1,), (threads,), tuple(b[a] if isinstance(a, str) else a for a in args()))
    cp.cuda.runtime.deviceSynchronize()
    return figures(b["clk"].get())


def simulated(stem: str, overrides: tuple[str, ...] = ()) -> list[float]:
    res = simulate_block(KERNELS / f"{stem}.ptx", "fp64_issue", THREADS, args(), buffers(), overrides)
    return figures(res.outputs["clk"])


def main() -> int:
    a = model_probe_parser(__doc__).parse_args()
    if a.gpu:
        write_result({"tool": os.path.basename(__file__), "iters": ITERS, "figures": ["span", "each warp's end"],
                      "cycles": {v: gpu_medians(committed_cubin_path(KERNELS / f"{stem}.ptx"), ["fp64_issue"], SETS, launch, 1)
                                 for v, stem in VARIANTS.items()}}, a.out)
        return 0
    rec = recorded(RECORDED, "cycles")
    for variant, stem in VARIANTS.items():
        hw = rec.get(variant, {}).get("fp64_issue / 8 warps/SMSP")
        model = simulated(stem, tuple(a.set))
        hw_slots = slot_ends(hw) if hw else [float("nan")] * 8
        print(f"{variant}: span {hw[0] if hw else float('nan'):.0f} / {model[0]:.0f} (H100 / model); slots' mean ends, "
              "slot 0 first: " + "  ".join(f"{h:.0f} / {m:.0f}" for h, m in zip(hw_slots, slot_ends(model))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
