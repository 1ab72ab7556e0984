#!/usr/bin/env python
"""How fast shared-memory accesses with bank conflicts issue: on the GPU (--gpu) and in the
simulator (default).  Every running warp issues 64 iterations of 8 independent accesses of one
kind (tools/kernels/shared_rate.cu, its PTX and the committed cubin beside it): STS/LDS .32 with
lanes 1, 4 or 8 words apart (1-, 4-, 8-way), .64 and .128 conflict-free, .64 as the m16n8
accumulator tile (4 passes) and .128 with 16 lanes 64 bytes apart (8 passes).  One block of 16
warps, of which 1, 4 (one per sub-partition or all on one) or 16 run: the cycles per access of a
lone warp, of a sub-partition and of the SM tell which of them pays for a bank conflict.

    python tools/shared_rate.py --gpu --out programs/t-mio-w1/reference/h100-shared-rate.json
    python tools/shared_rate.py           # the simulator's cycles per access beside the recorded ones
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import gpu_medians, gpu_name, model_probe_parser, recorded, simulate_block, write_result  # noqa: E402  (tools/, beside this file)
PTX = ROOT / "tools" / "kernels" / "shared_rate.ptx"
RECORDED = ROOT / "programs" / "t-mio-w1" / "reference" / "h100-shared-rate.json"
ACCESSES = 64 * 8
WARPS = 16
KERNELS = {"k_sts32": "STS.32", "k_sts32_4way": "STS.32 4-way", "k_sts32_8way": "STS.32 8-way",
           "k_sts64": "STS.64", "k_sts64_tile": "STS.64 tile (4 passes)", "k_sts128": "STS.128",
           "k_sts128_rows": "STS.128 16 lanes (8 passes)", "k_lds32": "LDS.32", "k_lds32_4way": "LDS.32 4-way",
           "k_lds64": "LDS.64", "k_lds64_tile": "LDS.64 tile (4 passes)", "k_lds128": "LDS.128",
           "k_lds128_rows": "LDS.128 16 lanes (8 passes)"}
ACTIVE = {"1 warp": 0x1, "4 warps, 4 sub-partitions": 0xF, "4 warps, 1 sub-partition": 0x1111, "16 warps": 0xFFFF}


def cycles_per_access(clk: np.ndarray, active: int) -> list[float]:
    """The running warps' mean cycles per access, and the SM's: their span from the first start
    to the last end over all their accesses."""
    c = clk.reshape(WARPS, 2).astype(np.int64)[[w for w in range(WARPS) if (active >> w) & 1]]
    per_warp = float(((c[:, 1] - c[:, 0]) / ACCESSES).mean())
    sm = float(c[:, 1].max() - c[:, 0].min()) / (ACCESSES * len(c))
    return [round(per_warp, 2), round(sm, 2)]


def loop(cp, f, name: str, active: int) -> list[float]:
    clk, out = cp.zeros(2 * WARPS, cp.int64), cp.zeros(WARPS * 32, cp.uint32)
    f((1,), (WARPS * 32,), (clk, out, np.uint32(active)))
    cp.cuda.runtime.deviceSynchronize()
    return cycles_per_access(clk.get(), active)


def simulated(name: str, active: int, overrides: tuple[str, ...] = ()) -> list[float]:
    bufs = {"clk": np.zeros(2 * WARPS, np.int64), "out": np.zeros(WARPS * 32, np.uint32)}
    res = simulate_block(PTX, name, WARPS * 32, ["clk", "out", active], bufs, overrides)
    return cycles_per_access(res.outputs["clk"], active)


def main() -> int:
    args = model_probe_parser(__doc__).parse_args()
    if args.gpu:
        write_result({"tool": os.path.basename(__file__), "device": gpu_name(), "accesses": ACCESSES,
                      "kernels": KERNELS, "active": ACTIVE,
                      "cycles_per_access": gpu_medians(PTX, KERNELS, ACTIVE, loop, 2)}, args.out)
        return 0
    rec = recorded(RECORDED, "cycles_per_access")
    print(f"{'access':<28} {'running warps':<28} cycles per access (a warp's, the SM's): H100 | model")
    for name, what in KERNELS.items():
        for label, active in ACTIVE.items():
            hw = " ".join(f"{v:6.2f}" for v in rec.get(f"{name} / {label}", []))
            model = " ".join(f"{v:6.2f}" for v in simulated(name, active, tuple(args.set)))
            print(f"{what:<28} {label:<28} {hw:>13} | {model}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
