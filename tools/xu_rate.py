#!/usr/bin/env python
"""How long a conversion or special-function instruction holds a sub-partition's XU pipe: on the GPU
(--gpu) and in the simulator (default).  One block of 1 to 32 warps runs STEPS steps of 8
independent conversions each (tools/kernels/xu_rate.cu, its PTX and the committed cubin beside it);
with 8 warps per sub-partition the XU pipe is the bottleneck, so the cycles per conversion per
sub-partition are the pipe's time for one warp-instruction.

    python tools/xu_rate.py --gpu --out programs/t-fp64-issue-cvt-w1/reference/h100-xu-rate.json
    python tools/xu_rate.py              # the simulator beside the recorded figures
    python tools/xu_rate.py --set sass.units.sfu.lanes=2
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import gpu_medians, model_probe_parser, recorded, simulate_block, span_per_warp_step, write_result  # noqa: E402  (tools/, beside this file)
PTX = ROOT / "tools" / "kernels" / "xu_rate.ptx"
RECORDED = ROOT / "programs" / "t-fp64-issue-cvt-w1" / "reference" / "h100-xu-rate.json"
STEPS, CHAINS = 128, 8
KERNELS = {"k_f2f_f64_f32": "F2F.F64.F32 (+ DADD, FMUL)", "k_f2f_f32_f64": "F2F.F32.F64 (+ FADD, DMUL)",
           "k_mufu_ex2": "MUFU.EX2 (+ FADD, FMUL)", "k_i2f_f32_s32": "I2FP.F32.S32 (+ FADD, FMUL)"}
THREADS = {"1 warp": 32, "1 warp/SMSP": 128, "4 warps/SMSP": 512, "8 warps/SMSP": 1024}


def cycles_per_conversion(clk: np.ndarray, threads: int) -> list[float]:
    """Cycles per conversion per sub-partition: the span from the first warp's start to the last
    one's end over the conversions the busiest sub-partition issued."""
    return span_per_warp_step(clk, threads, STEPS * CHAINS)


def factor(name: str):
    """The kernel's multiplier c, in its chains' type (double for the narrowing conversion)."""
    return np.float64(0.999) if name == "k_f2f_f32_f64" else np.float32(0.999)


def launch(cp, f, name: str, threads: int) -> list[float]:
    clk, out = cp.zeros(64, cp.int64), cp.zeros(1024, cp.float32)
    c = factor(name)
    f((1,), (threads,), (clk, out, c))
    cp.cuda.runtime.deviceSynchronize()
    return cycles_per_conversion(clk.get(), threads)


def simulated(name: str, threads: int, overrides: tuple[str, ...] = ()) -> list[float]:
    c = factor(name)
    bufs = {"clk": np.zeros(64, np.int64), "out": np.zeros(1024, np.float32)}
    res = simulate_block(PTX, name, threads, ["clk", "out", c], bufs, overrides)
    return cycles_per_conversion(res.outputs["clk"], threads)


def main() -> int:
    ap = model_probe_parser(__doc__)
    args = ap.parse_args()
    if args.gpu:
        write_result({"tool": os.path.basename(__file__), "steps": STEPS, "chains": CHAINS, "kernels": KERNELS,
                      "threads": THREADS,
                      "cycles_per_conversion": gpu_medians(PTX, KERNELS, THREADS, launch, 3)}, args.out)
        return 0
    rec = recorded(RECORDED, "cycles_per_conversion")
    print(f"{'kernel':<30} {'warps':<14} cycles per conversion per sub-partition: H100   model")
    for name, what in KERNELS.items():
        for label, threads in THREADS.items():
            hw = rec.get(f"{name} / {label}", [float("nan")])[0]
            model = simulated(name, threads, tuple(args.set))[0]
            print(f"{what:<30} {label:<14} {hw:>47.2f} {model:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
