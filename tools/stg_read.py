#!/usr/bin/env python
"""When stores read their data under load: on the GPU (--gpu) and in the simulator (default).
Each step of a loop stores a register pair K times (STG.64 of 256 bytes a warp, STS.64, or four
of each as the tensor-core predictor's epilogue does), then two FFMAs overwrite the pair and wait
for the last store's read barrier (tools/kernels/stg_read.cu, its PTX and the committed cubin
beside it).  One block of 32 warps, of which 1, 4 (one per sub-partition), 16 or 32 run: the
cycles per step show how long a store's data read waits behind the stores before it, the warp's
own and its neighbours'.

    python tools/stg_read.py --gpu --out programs/t-mio-w1/reference/h100-stg-read.json
    python tools/stg_read.py           # the simulator's cycles per step beside the recorded ones
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import gpu_medians, gpu_name, model_probe_parser, recorded, running_warp_steps, simulate_block, write_result  # noqa: E402  (tools/, beside this file)
PTX = ROOT / "tools" / "kernels" / "stg_read.ptx"
RECORDED = ROOT / "programs" / "t-mio-w1" / "reference" / "h100-stg-read.json"
STEPS = 64
WARPS = 32
KERNELS = {"k_stg1": "1 STG.64", "k_stg2": "2 STG.64", "k_stg4": "4 STG.64", "k_stg8": "8 STG.64",
           "k_sts1": "1 STS.64", "k_sts2": "2 STS.64", "k_sts4": "4 STS.64", "k_stg4_sts4": "4 STG.64, 4 STS.64",
           "k_sts128_1": "1 STS.128", "k_sts128_2": "2 STS.128", "k_sts128_4": "4 STS.128",
           "k_tile_stg4": "tile: 4 STG.64", "k_tile_sts4": "tile: 4 STS.64", "k_tile_stg4_sts4": "tile: 4 STG, 4 STS",
           "k_tile_epilogue": "tile epilogue"}
ACTIVE = {"1 warp": 0x1, "4 warps, 4 sub-partitions": 0xF, "4 warps, 1 sub-partition": 0x1111, "16 warps": 0xFFFF,
          "32 warps": 0xFFFFFFFF}
C, D = np.float32(0.5), np.float32(1.0)


def cycles_per_step(times: np.ndarray, active: int) -> list[float]:
    """The running warps' mean and longest cycles per step, from their two clock words."""
    per = running_warp_steps(times, WARPS, active, STEPS)
    return [round(float(per.mean()), 2), round(float(per.max()), 2)]


def loop(cp, f, name: str, active: int) -> list[float]:
    times, out = cp.zeros(2 * WARPS, cp.uint32), cp.zeros(WARPS * 544, cp.float32)
    f((1,), (WARPS * 32,), (times, out, np.uint32(active), C, D))
    cp.cuda.runtime.deviceSynchronize()
    return cycles_per_step(times.get(), active)


def simulated(name: str, active: int, overrides: tuple[str, ...] = ()) -> list[float]:
    bufs = {"times": np.zeros(2 * WARPS, np.uint32), "out": np.zeros(WARPS * 544, np.float32)}
    res = simulate_block(PTX, name, WARPS * 32, ["times", "out", active, C, D], bufs, overrides)
    return cycles_per_step(res.outputs["times"], active)


def main() -> int:
    args = model_probe_parser(__doc__).parse_args()
    if args.gpu:
        write_result({"tool": os.path.basename(__file__), "device": gpu_name(), "steps": STEPS, "kernels": KERNELS, "active": ACTIVE,
                      "cycles_per_step": gpu_medians(PTX, KERNELS, ACTIVE, loop, 2)}, args.out)
        return 0
    rec = recorded(RECORDED, "cycles_per_step")
    print(f"{'stores a step':<20} {'running warps':<28} cycles per step (mean, longest): H100 | model")
    for name, what in KERNELS.items():
        for label, active in ACTIVE.items():
            hw = " ".join(f"{v:6.1f}" for v in rec.get(f"{name} / {label}", []))
            model = " ".join(f"{v:6.1f}" for v in simulated(name, active, tuple(args.set)))
            print(f"{what:<20} {label:<28} {hw:>13} | {model}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
