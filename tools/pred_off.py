#!/usr/bin/env python
"""Do memory instructions whose guard predicate is false take the LD/ST pipe: on the GPU (--gpu)
and in the simulator (default).  Every running warp issues 64 iterations of 8 independent LDS.32,
STS.32 or LDG.E (an L1-resident line) under a predicate true or false for every lane
(tools/kernels/pred_off.cu, its PTX and the committed cubin beside it); ptxas keeps the guard, so
the instructions issue either way.  One block of 16 warps, of which 1, 4 (one per sub-partition)
or 16 run.  Figures: a running warp's mean cycles per instruction and the SM's (the running warps'
span over all their instructions).  Where the predicate is false the access moves no data; if the
pipe still takes it, the false rows cost what the true ones do.

    python tools/pred_off.py --gpu --out programs/w-matmul-pipeline/reference/h100-pred-off.json
    python tools/pred_off.py           # the simulator beside the recorded figures
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import beside, gpu_medians, gpu_name, model_probe_parser, recorded, simulate_block, write_result  # noqa: E402
from simt_sim.calibrate.probes.shared_rate import ACCESSES, WARPS, figures  # noqa: E402  (the same loop shape: 16 warps, 512 accesses)

PTX = ROOT / "tools" / "kernels" / "pred_off.ptx"
RECORDED = ROOT / "programs" / "w-matmul-pipeline" / "reference" / "h100-pred-off.json"
KERNELS = {"k_lds": "LDS.32", "k_sts": "STS.32", "k_ldg": "LDG.E (L1 hits)"}
ACTIVE = {"1 warp": 0x1, "4 warps, 4 sub-partitions": 0xF, "16 warps": 0xFFFF}
GUARDS = {"true": 1, "false": 0}


def cycles_per_access(clk, active: int) -> list[float]:
    """The running warps' mean cycles per access and the SM's, as probe shared_rate's."""
    return figures({"clk": clk}, None, active)


def key(name: str, label: str, guard: str) -> str:
    return f"{name} / {label} / {guard}"


def measure() -> dict:
    import cupy as cp
    g = cp.arange(32 * 8, dtype=cp.uint32)

    def launch(cp, f, name, warps) -> list[float]:
        active, on = warps
        clk, res = cp.zeros(2 * WARPS, cp.int64), cp.zeros(WARPS * 32, cp.uint32)
        f((1,), (WARPS * 32,), (clk, res, g, np.uint32(active), np.int32(on)))
        cp.cuda.runtime.deviceSynchronize()
        return cycles_per_access(clk.get(), active)
    sets = {f"{label} / {guard}": (active, on) for label, active in ACTIVE.items() for guard, on in GUARDS.items()}
    return {"tool": os.path.basename(__file__), "device": gpu_name(), "accesses": ACCESSES,
            "cycles_per_instruction": gpu_medians(PTX, KERNELS, sets, launch, 2)}


def simulated(name: str, active: int, on: int, overrides: tuple[str, ...] = ()) -> list[float]:
    bufs = {"clk": np.zeros(2 * WARPS, np.int64), "out": np.zeros(WARPS * 32, np.uint32),
            "g": np.arange(32 * 8, dtype=np.uint32)}
    res = simulate_block(PTX, name, WARPS * 32, ["clk", "out", "g", active, on], bufs, overrides)
    return cycles_per_access(res.outputs["clk"], active)


def main() -> int:
    args = model_probe_parser(__doc__).parse_args()
    if args.gpu:
        write_result(measure(), args.out)
        return 0
    rec = recorded(RECORDED, "cycles_per_instruction")
    print(f"{'instruction':<16} {'running warps':<26} {'guard':<6} cycles per instruction (a warp's, the SM's): H100 | model")
    for name, what in KERNELS.items():
        for label, active in ACTIVE.items():
            for guard, on in GUARDS.items():
                print(f"{what:<16} {label:<26} {guard:<6} " + beside(rec.get(key(name, label, guard), []),
                                                                   simulated(name, active, on, tuple(args.set))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
