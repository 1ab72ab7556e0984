#!/usr/bin/env python
"""What FP64 adds, widening conversions and exponentials cost among FP32 multiplies: on the GPU
(--gpu) and in the simulator (default).  One block of 1 or 8 warps per sub-partition runs STEPS
steps of 8 independent FMUL chains plus 0, 1, 2 or 4 added chains (DADD, F2F.F64.F32 + DADD,
MUFU.EX2 + FADD) that never feed the multiplies (tools/kernels/dispatch_stall.cu, its PTX and the
committed cubin beside it).  With 8 warps per sub-partition the scheduler is the limit, so the
cycles a step adds over the plain one are the added issue slots plus what the H100 loses to them
(Nsight Compute: dispatch stall; run the --gpu command under ncu for its stall reasons).

    python tools/dispatch_stall.py --gpu --out programs/t-fp64-issue-cvt-w1/reference/h100-dispatch-stall.json
    python tools/dispatch_stall.py              # the simulator beside the recorded figures
    python tools/dispatch_stall.py --set 'sass.write_port_units=[fp32, int, fp64, sfu]'
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import gpu_medians, model_probe_parser, recorded, simulate_block, span_per_warp_step, write_result  # noqa: E402  (tools/, beside this file)
PTX = ROOT / "tools" / "kernels" / "dispatch_stall.ptx"
RECORDED = ROOT / "programs" / "t-fp64-issue-cvt-w1" / "reference" / "h100-dispatch-stall.json"
STEPS = 128
KERNELS = {"k_none": "8 FMUL chains", "k_dadd1": "+ 1 DADD chain", "k_dadd4": "+ 4 DADD chains",
           "k_f2f1": "+ 1 F2F.F64.F32 + DADD", "k_f2f2": "+ 2 F2F.F64.F32 + DADD", "k_f2f4": "+ 4 F2F.F64.F32 + DADD",
           "k_ex2_1": "+ 1 MUFU.EX2 + FADD", "k_ex2_2": "+ 2 MUFU.EX2 + FADD", "k_ex2_4": "+ 4 MUFU.EX2 + FADD"}
THREADS = {"1 warp/SMSP": 128, "8 warps/SMSP": 1024}
ARGS = (np.float32(0.999), np.float64(1.0e-3))


def launch(cp, f, name: str, threads: int) -> list[float]:
    clk, out = cp.zeros(64, cp.int64), cp.zeros(1024, cp.float32)
    f((1,), (threads,), (clk, out, *ARGS))
    cp.cuda.runtime.deviceSynchronize()
    return span_per_warp_step(clk.get(), threads, STEPS)


def simulated(name: str, threads: int, overrides: tuple[str, ...] = ()) -> list[float]:
    bufs = {"clk": np.zeros(64, np.int64), "out": np.zeros(1024, np.float32)}
    res = simulate_block(PTX, name, threads, ["clk", "out", *ARGS], bufs, overrides)
    return span_per_warp_step(res.outputs["clk"], threads, STEPS)


def main() -> int:
    args = model_probe_parser(__doc__).parse_args()
    if args.gpu:
        write_result({"tool": os.path.basename(__file__), "steps": STEPS, "kernels": KERNELS, "threads": THREADS,
                      "cycles_per_step": gpu_medians(PTX, KERNELS, THREADS, launch, 3)}, args.out)
        return 0
    rec = recorded(RECORDED, "cycles_per_step")
    print(f"{'kernel':<26} {'warps':<14} cycles per warp-step: H100   model | added to the plain step: H100   model")
    for label, threads in THREADS.items():
        hw = {name: rec.get(f"{name} / {label}", [float("nan")])[0] for name in KERNELS}
        model = {name: simulated(name, threads, tuple(args.set))[0] for name in KERNELS}
        for name, what in KERNELS.items():
            print(f"{what:<26} {label:<14} {hw[name]:>26.2f} {model[name]:7.2f} | "
                  f"{hw[name] - hw['k_none']:>29.2f} {model[name] - model['k_none']:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
