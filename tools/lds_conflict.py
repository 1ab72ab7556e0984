#!/usr/bin/env python
"""How long a shared load with bank conflicts takes: on the GPU (--gpu) and in the simulator
(default).  Each running warp chases a dependent chain of loads (tools/kernels/lds_conflict.cu, its
PTX and the committed cubin beside it): LDS.32 with lanes 1, 2, 4, 8 or 16 words apart (1- to
16-way conflicts), LDS.128 conflict-free, and the tensor-core predictor's epilogue reads, 16 lanes
64 bytes apart (LDS.128 and LDS.64).  One block of 16 warps, of which 1, 4 (one per sub-partition
or all on one) or 16 run: the cycles per step are a load's latency, then its throughput.

    python tools/lds_conflict.py --gpu --out programs/t-mio-w1/reference/h100-lds-conflict.json
    python tools/lds_conflict.py           # the simulator's cycles per step beside the recorded ones
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import gpu_medians, gpu_name, model_probe_parser, recorded, running_warp_steps, simulate_block, write_result  # noqa: E402  (tools/, beside this file)
PTX = ROOT / "tools" / "kernels" / "lds_conflict.ptx"
RECORDED = ROOT / "programs" / "t-mio-w1" / "reference" / "h100-lds-conflict.json"
STEPS = 64
WARPS = 16
KERNELS = {"k_lds32_s1": "LDS.32 1-way", "k_lds32_s2": "LDS.32 2-way", "k_lds32_s4": "LDS.32 4-way",
           "k_lds32_s8": "LDS.32 8-way", "k_lds32_s16": "LDS.32 16-way", "k_lds128_s4": "LDS.128",
           "k_lds128_s4_h": "LDS.128 16 lanes", "k_lds128_s16_h": "LDS.128 16 lanes 64 B",
           "k_lds64_s16_h": "LDS.64 16 lanes 64 B"}
ACTIVE = {"1 warp": 0x1, "4 warps, 4 sub-partitions": 0xF, "4 warps, 1 sub-partition": 0x1111, "16 warps": 0xFFFF}


def cycles_per_step(times: np.ndarray, active: int) -> list[float]:
    """The running warps' mean and longest cycles per step, from their two clock words."""
    per = running_warp_steps(times, WARPS, active, STEPS)
    return [round(float(per.mean()), 2), round(float(per.max()), 2)]


def loop(cp, f, name: str, active: int) -> list[float]:
    times, out = cp.zeros(2 * WARPS, cp.uint32), cp.zeros(WARPS * 32, cp.uint32)
    f((1,), (WARPS * 32,), (times, out, np.uint32(active)))
    cp.cuda.runtime.deviceSynchronize()
    return cycles_per_step(times.get(), active)


def simulated(name: str, active: int, overrides: tuple[str, ...] = ()) -> list[float]:
    bufs = {"times": np.zeros(2 * WARPS, np.uint32), "out": np.zeros(WARPS * 32, np.uint32)}
    res = simulate_block(PTX, name, WARPS * 32, ["times", "out", active], bufs, overrides)
    return cycles_per_step(res.outputs["times"], active)


def main() -> int:
    args = model_probe_parser(__doc__).parse_args()
    if args.gpu:
        write_result({"tool": os.path.basename(__file__), "device": gpu_name(), "steps": STEPS, "kernels": KERNELS,
                      "active": ACTIVE, "cycles_per_step": gpu_medians(PTX, KERNELS, ACTIVE, loop, 2)}, args.out)
        return 0
    rec = recorded(RECORDED, "cycles_per_step")
    print(f"{'load':<24} {'running warps':<28} cycles per step (mean, longest): H100 | model")
    for name, what in KERNELS.items():
        for label, active in ACTIVE.items():
            hw = " ".join(f"{v:6.1f}" for v in rec.get(f"{name} / {label}", []))
            model = " ".join(f"{v:6.1f}" for v in simulated(name, active, tuple(args.set)))
            print(f"{what:<24} {label:<28} {hw:>13} | {model}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
