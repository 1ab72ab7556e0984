#!/usr/bin/env python
"""How an SM's warps share its schedulers over time: on the GPU (--gpu) and in the simulator
(default).  tools/block_order.py shows the order in which an SM's blocks end; this shows how they
get there.  A grid of B blocks of 128 threads per SM (132 x B on the H100, B on the model's one SM)
runs block_order's FMUL loops (tools/kernels/warp_progress.cu, its PTX and the committed cubin:
one dependent chain a warp, whose FMULs carry ptxas's yield hint, or four independent chains,
whose FMULs carry none), every warp recording the clock each 16 of its 256 iterations.  Per SM,
blocks in launch order have ranks 0..B-1; the figures are, over the SMs that hold exactly B
blocks, each rank's mean clock (its warps' mean, from the SM's first warp's start) at each
checkpoint.  Strict age order shows as rank 0 running at its lone pace while the young ranks
stand still; an even share as every rank advancing together.  Each kernel also runs from the
committed cubins with the yield hint set on every FMUL (warp_progress_yield) and cleared on every
FMUL (warp_progress_noyield), their sass-patch.yaml files beside them.

    python tools/warp_progress.py --gpu --out programs/workloads/w-fusion-cd-only/reference/h100-warp-progress.json
    python tools/warp_progress.py                 # the simulator beside the recorded figures
    python tools/warp_progress.py --set scheduler.policy=awf --set scheduler.age_weight_step=0.1
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

from simt_sim.frontend.sass import committed_cubin_path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import gpu_medians, model_probe_parser, recorded, write_result  # noqa: E402  (tools/, beside this file)
PTX = ROOT / "tools" / "kernels" / "warp_progress.ptx"
RECORDED = ROOT / "programs" / "workloads" / "w-fusion-cd-only" / "reference" / "h100-warp-progress.json"
VARIANTS = {"ptxas's hints": "warp_progress", "a hint on every FMUL": "warp_progress_yield",
            "no FMUL hints": "warp_progress_noyield"}
ITERS, CHECK = 256, 16                 # as in the kernel
POINTS = ITERS // CHECK + 1            # checkpoints a warp records (the last after its loop)
THREADS = 128
KERNELS = {"k_chain_progress": "one dependent FMUL chain a warp (yield hint on every FMUL)",
           "k_chains4_progress": "four independent chains a warp (no yield hints)"}
SETS = {"2 blocks of 128": 2, "4 blocks of 128": 4, "8 blocks of 128": 8}
M = np.float32(0.9999)


def buffers(blocks: int) -> dict:
    n = blocks * THREADS
    warps = n // 32
    return {"in": np.random.default_rng(5).uniform(0.9, 1.1, n).astype(np.float32), "out": np.zeros(n, np.float32),
            "prog": np.zeros(warps * POINTS, np.int64), "info": np.zeros(2 * warps, np.int32)}


ARGS = ["in", "out", "prog", "info", M]


def rank_progress(prog: np.ndarray, info: np.ndarray, per_sm: int) -> list[float]:
    """[SMs holding exactly per_sm blocks, then per rank its mean clock at each checkpoint]
    (per_sm x POINTS numbers, in cycles from the SM's first start)."""
    clocks = np.asarray(prog).reshape(-1, POINTS).astype(np.int64)
    where = np.asarray(info).reshape(-1, 2).astype(np.int64)          # SM, block per warp
    curves = []
    for sm in np.unique(where[:, 0]):
        mine = where[:, 0] == sm
        blocks = np.unique(where[mine, 1])
        if len(blocks) != per_sm:
            continue
        first = clocks[mine, 0].min()
        curves.append([clocks[mine & (where[:, 1] == b)].mean(axis=0) - first for b in blocks])
    if not curves:
        return [0.0] + [float("nan")] * (per_sm * POINTS)
    return [float(len(curves)), *np.mean(curves, axis=0).reshape(-1).tolist()]


def launch(cp, f, name: str, per_sm: int) -> list[float]:
    n_sm = cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
    b = {k: cp.asarray(v) for k, v in buffers(per_sm * n_sm).items()}
    f((per_sm * n_sm,), (THREADS,), tuple(b[a] if isinstance(a, str) else a for a in ARGS))
    cp.cuda.runtime.deviceSynchronize()
    return rank_progress(b["prog"].get(), b["info"].get(), per_sm)


def simulated(name: str, per_sm: int, overrides: tuple[str, ...] = (), ptx: Path = PTX) -> list[float]:
    import simt_sim
    prog = simt_sim.load_program(str(ptx), name, isa="sass")
    cfg = simt_sim.load_config("h100", ["num_sms=1", *overrides])
    res = simt_sim.simulate(simt_sim.Launch(prog, per_sm, THREADS, ARGS), buffers(per_sm), cfg)
    return rank_progress(res.outputs["prog"], res.outputs["info"], per_sm)


def curves(figures, per_sm: int) -> np.ndarray:
    return np.asarray(figures[1:], float).reshape(per_sm, POINTS)


def main() -> int:
    ap = model_probe_parser(__doc__)
    a = ap.parse_args()
    if a.gpu:
        write_result({"tool": os.path.basename(__file__), "iters": ITERS, "check": CHECK, "kernels": KERNELS,
                      "sets": SETS, "progress": {v: gpu_medians(committed_cubin_path(PTX.with_name(f"{stem}.ptx")), KERNELS, SETS,
                                                                launch, 1) for v, stem in VARIANTS.items()}}, a.out)
        return 0
    rec = recorded(RECORDED, "progress")
    shown = range(0, POINTS, 4)
    print("each rank's mean clock when it starts iteration 0, 64, 128, 192 and after 256, cycles from the SM's first "
          "start: H100 / model")
    for (variant, stem), (name, what) in ((v, k) for v in VARIANTS.items() for k in KERNELS.items()):
        print(f"{name}: {what}; {variant}")
        for label, per_sm in SETS.items():
            model = curves(simulated(name, per_sm, tuple(a.set), PTX.with_name(f"{stem}.ptx")), per_sm)
            got = rec.get(variant, {}).get(f"{name} / {label}")
            hw = curves(got, per_sm) if got else None
            err = "" if hw is None else \
                f"   (model off by {100 * np.mean(np.abs(model[:, 1:] - hw[:, 1:]) / hw[:, 1:]):.1f}% on average)"
            print(f"  {label}{err}")
            for r in range(per_sm):
                cells = [f"{hw[r, k]:7.0f} / {model[r, k]:<7.0f}" if hw is not None else f"{model[r, k]:7.0f}"
                         for k in shown]
                print(f"    rank {r}  " + "  ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
