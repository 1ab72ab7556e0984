#!/usr/bin/env python
"""When each warp of the warp-specialisation kernel ends: on the GPU (--gpu) and in the simulator
(default).  One block of 1,024 threads runs the loop of programs/include/w_warpspec.cuh (the first
FP64_WARPS warps an FP64 chain, the others an FP32 chain, ITERS x 8 dependent multiplies), each
warp recording its own start and end (tools/kernels/warp_ends.cu, its PTX and the committed
cubin).  With 8 FP64 warps two of them share each scheduler with six FP32 warps: whether they fall
behind is what the study's block span shows only in sum.  The same loop unrolled 8 times takes a
branch once per 64 multiplies instead of 8.

    python tools/warp_ends.py --gpu --out programs/w-warpspec-fp64w8/reference/h100-warp-ends.json
    python tools/warp_ends.py              # the simulator beside the recorded figures
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import gpu_medians, model_probe_parser, recorded, simulate_block, write_result  # noqa: E402  (tools/, beside this file)
PTX = ROOT / "tools" / "kernels" / "warp_ends.ptx"
RECORDED = ROOT / "programs" / "w-warpspec-fp64w8" / "reference" / "h100-warp-ends.json"
ITERS, THREADS = 512, 1024
KERNELS = {"warp_ends": "a taken loop branch every 8 multiplies", "warp_ends_u8": "one every 64 (unroll 8)"}
SETS = {f"{n} FP64 warps": n for n in (0, 4, 8, 32)}
M, MD = np.float32(0.9999), np.float64(0.9999)
FIGURES = ("span", "FP32 warps' mean end", "FP64 warps' mean end", "last FP32 end", "last FP64 end")


def figures(clk: np.ndarray, fp64_warps: int) -> list[float]:
    """FIGURES, in cycles from the first warp's start, then every warp's end."""
    c = np.asarray(clk)[: 2 * THREADS // 32].reshape(-1, 2).astype(np.int64)
    ends = c[:, 1] - c[:, 0].min()
    fp32, fp64 = ends[fp64_warps:], ends[:fp64_warps]

    def mean(a):
        return float(a.mean()) if len(a) else float("nan")

    def last(a):
        return float(a.max()) if len(a) else float("nan")
    return [float(ends.max()), mean(fp32), mean(fp64), last(fp32), last(fp64), *map(float, ends)]


def args_for(fp64_warps: int) -> list:
    return ["in", "out32", "out64", "clk", M, MD, np.int32(ITERS), np.int32(fp64_warps)]


def buffers() -> dict:
    return {"in": np.random.default_rng(3).uniform(0.9, 1.1, THREADS).astype(np.float32),
            "out32": np.zeros(THREADS, np.float32), "out64": np.zeros(THREADS, np.float64),
            "clk": np.zeros(64, np.int64)}


def launch(cp, f, name: str, fp64_warps: int) -> list[float]:
    b = {k: cp.asarray(v) for k, v in buffers().items()}
    f((1,), (THREADS,), tuple(b[a] if isinstance(a, str) else a for a in args_for(fp64_warps)))
    cp.cuda.runtime.deviceSynchronize()
    return figures(b["clk"].get(), fp64_warps)


def simulated(fp64_warps: int, overrides: tuple[str, ...] = (), kernel: str = "warp_ends") -> list[float]:
    res = simulate_block(PTX, kernel, THREADS, args_for(fp64_warps), buffers(), overrides)
    return figures(res.outputs["clk"], fp64_warps)


def main() -> int:
    args = model_probe_parser(__doc__).parse_args()
    if args.gpu:
        write_result({"tool": os.path.basename(__file__), "iters": ITERS, "sets": SETS, "figures": FIGURES,
                      "cycles": gpu_medians(PTX, KERNELS, SETS, launch, 1)}, args.out)
        return 0
    rec = recorded(RECORDED, "cycles")
    for kernel, what in KERNELS.items():
        print(f"{kernel}: {what}")
        print(f"{'':<14}" + "".join(f"{f:>22}" for f in FIGURES) + "   (cycles from the first start: H100 / model)")
        for label, n in SETS.items():
            hw = rec.get(f"{kernel} / {label}", [float("nan")] * len(FIGURES))
            model = simulated(n, tuple(args.set), kernel)
            print(f"{label:<14}" + "".join(f"{h:>11.0f} /{m:>8.0f}  " for h, m in zip(hw, model)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
