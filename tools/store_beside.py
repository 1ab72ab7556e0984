#!/usr/bin/env python
"""Whether a warp's stores read their data later while other warps of its sub-partition keep busy:
on the GPU (--gpu) and in the simulator (default).  Warp 0 runs stg_read's loop (4 STG.64 or
4 STS.64 a step, then two FFMAs that overwrite the data and wait for the last store's read
barrier) while warps 4, 8 and 12 run nothing, back-to-back HMMA.16816.F32, FFMA or LDS.128
(tools/kernels/store_beside.cu, its PTX and the committed cubin beside it): the tensor-core
predictor's epilogue waits much longer for its stores' read barrier on the H100 than alone.

    python tools/store_beside.py --gpu --out programs/t-mio-w1/reference/h100-store-beside.json
    python tools/store_beside.py           # the simulator's cycles per step beside the recorded ones
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import gpu_medians, gpu_name, model_probe_parser, recorded, simulate_block, write_result  # noqa: E402  (tools/, beside this file)
PTX = ROOT / "tools" / "kernels" / "store_beside.ptx"
RECORDED = ROOT / "programs" / "t-mio-w1" / "reference" / "h100-store-beside.json"
STEPS = 64
THREADS = 512
KERNELS = {f"k_{st}_{busy}": f"4 {st.upper()}.64 beside {busy}" for st in ("stg", "sts")
           for busy in ("alone", "hmma", "ffma", "lds")}
KERNELS.update({"k_stg_hmma_1w": "4 STG.64 beside 1 hmma warp", "k_stg_hmma_2w": "4 STG.64 beside 2 hmma warps",
                "k_stg_hmma_1c": "4 STG.64 beside hmma 1 chain", "k_sts_hmma_1w": "4 STS.64 beside 1 hmma warp",
                "k_sts_hmma_1c": "4 STS.64 beside hmma 1 chain", "k_stg_hmma_other": "4 STG.64, hmma on another SMSP"})
ACTIVE = {"warp 0": 0}
C, D = np.float32(0.5), np.float32(1.0)


def cycles_per_step(times: np.ndarray) -> list[float]:
    return [round(float((int(times[1]) - int(times[0])) % (1 << 32)) / STEPS, 2)]


def loop(cp, f, name: str, active: int) -> list[float]:
    times, out = cp.zeros(2, cp.uint32), cp.zeros(4096, cp.float32)
    f((1,), (THREADS,), (times, out, C, D))
    cp.cuda.runtime.deviceSynchronize()
    return cycles_per_step(times.get())


def simulated(name: str, overrides: tuple[str, ...] = ()) -> list[float]:
    bufs = {"times": np.zeros(2, np.uint32), "out": np.zeros(4096, np.float32)}
    res = simulate_block(PTX, name, THREADS, ["times", "out", C, D], bufs, overrides)
    return cycles_per_step(res.outputs["times"])


def main() -> int:
    args = model_probe_parser(__doc__).parse_args()
    if args.gpu:
        write_result({"tool": os.path.basename(__file__), "device": gpu_name(), "steps": STEPS, "kernels": KERNELS,
                      "cycles_per_step": gpu_medians(PTX, KERNELS, ACTIVE, loop, 2)}, args.out)
        return 0
    rec = recorded(RECORDED, "cycles_per_step")
    print(f"{'warp 0 stores, its neighbours run':<32} cycles per step: H100 | model")
    for name, what in KERNELS.items():
        hw = " ".join(f"{v:6.1f}" for v in rec.get(f"{name} / warp 0", []))
        model = " ".join(f"{v:6.1f}" for v in simulated(name, tuple(args.set)))
        print(f"{what:<32} {hw:>6} | {model}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
