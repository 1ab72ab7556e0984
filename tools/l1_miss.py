#!/usr/bin/env python
"""What a load that allocates in L1 pays when it misses L1 and hits L2, beside one that goes to L2
only: on the GPU (--gpu) and in the simulator (default).  tools/kernels/l1_miss.cu (its PTX and the
committed cubin beside it): one warp chases 64 lines 64 KiB apart, first with ld.global.cg (the
lines into L2, not L1), then timed with the same LDG.E.STRONG.GPU (k_chase_cg) or with a plain
LDG.E, which allocates in L1 (k_chase_ca).  Figures: cycles per step of the timed chase (the median
of 8 launches after one).  The tile loop staged from L2 with one warp per sub-partition
(tools/tile_loop.py) is 34-43 cycles a tile longer on the H100 than in the model.

    python tools/l1_miss.py --gpu --out programs/w-matmul-plain/reference/h100-l1-miss.json
    python tools/l1_miss.py             # the simulator beside the recorded figures
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import beside, gpu_medians, gpu_name, model_probe_parser, recorded, simulate_block, write_result  # noqa: E402
PTX = ROOT / "tools" / "kernels" / "l1_miss.ptx"
RECORDED = ROOT / "programs" / "w-matmul-plain" / "reference" / "h100-l1-miss.json"
KERNELS = ("k_chase_cg", "k_chase_ca")
STEPS, STRIDE = 64, 1 << 14             # lines 64 KiB (16 Ki words) apart


def chain() -> np.ndarray:
    """x[k * STRIDE] = (k + 1) * STRIDE: each line holds the next one's offset."""
    x = np.zeros(STEPS * STRIDE + 32, np.uint32)
    x[np.arange(STEPS) * STRIDE] = (np.arange(STEPS) + 1) * STRIDE
    return x


def step(clk) -> list[float]:
    return [round(float(clk[1] - clk[0]) / STEPS, 1)]


def launch(cp, f, name: str, warps: int) -> list[float]:
    x, clk, out = cp.asarray(chain()), cp.zeros(2, cp.int64), cp.zeros(64, cp.uint32)
    f((1,), (32,), (x, clk, out, np.int32(STEPS)))
    cp.cuda.runtime.deviceSynchronize()
    return step(clk.get())


def simulated(name: str, overrides: tuple[str, ...] = ()) -> list[float]:
    bufs = {"x": chain(), "clk": np.zeros(2, np.int64), "out": np.zeros(64, np.uint32)}
    return step(simulate_block(PTX, name, 32, ["x", "clk", "out", STEPS], bufs, overrides).outputs["clk"])


def main() -> int:
    args = model_probe_parser(__doc__).parse_args()
    if args.gpu:
        runs = gpu_medians(PTX, KERNELS, {"1 warp": 1}, launch, 1)
        write_result({"tool": os.path.basename(__file__), "device": gpu_name(), "steps": STEPS, "runs": runs}, args.out)
        return 0
    rec = recorded(RECORDED, "runs")
    print("kernel                 cycles a step: H100 | model")
    for name in KERNELS:
        key = f"{name} / 1 warp"
        print(f"{key:<22} " + beside(rec.get(key, []), simulated(name, tuple(args.set)), "7.1f", 8))
    return 0


if __name__ == "__main__":
    sys.exit(main())
