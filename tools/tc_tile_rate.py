#!/usr/bin/env python
"""How fast the fusion workloads' tensor-core predictor runs its 16-row tiles: on the GPU (--gpu)
and in the simulator (default).  One block of 1, 4, 8 or 16 warps runs tc_part.cuh's tile loop
(tools/kernels/tc_tile_rate.cu, its PTX and the committed cubin beside it), 8 tiles a warp with
their x rows in L2 (read past L1 first), with the tile's epilogue whole or without its global or
its shared store.  Printed: each warp's cycles per tile (the mean and the slowest warp's).

    python tools/tc_tile_rate.py --gpu --out programs/w-fusion-tc-only/reference/h100-tc-tile-rate.json
    python tools/tc_tile_rate.py           # the simulator beside the recorded figures
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import gpu_medians, gpu_name, model_probe_parser, recorded, simulate_block, write_result  # noqa: E402  (tools/, beside this file)
PTX = ROOT / "tools" / "kernels" / "tc_tile_rate.ptx"
RECORDED = ROOT / "programs" / "w-fusion-tc-only" / "reference" / "h100-tc-tile-rate.json"
TILES, MAX_WARPS = 8, 16
KERNELS = {"k_tiles": "tile as tc_part.cuh", "k_tiles_nostg": "no global store of the logits",
           "k_tiles_nosts": "no shared store, no argmax"}
WARPS = {"1 warp": 1, "4 warps": 4, "8 warps": 8, "16 warps": 16}


def inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1)
    return {"x": rng.integers(12288, 15360, MAX_WARPS * TILES * 256, dtype=np.uint16),
            "w1": rng.uniform(-1, 1, 512).astype(np.float32), "w2": rng.uniform(-1, 1, 512).astype(np.float32),
            "logits": np.zeros(MAX_WARPS * TILES * 256, np.float32), "pred": np.zeros(MAX_WARPS * TILES * 16, np.uint32),
            "times": np.zeros(2 * MAX_WARPS, np.uint32)}


def per_tile(times: np.ndarray, warps: int) -> list[float]:
    t = times.astype(np.int64).reshape(-1, 2)[:warps]
    c = ((t[:, 1] - t[:, 0]) % (1 << 32)) / TILES
    return [round(float(c.mean()), 1), round(float(c.max()), 1)]


def launch(cp, f, name: str, warps: int) -> list[float]:
    bufs = {k: cp.asarray(v) for k, v in inputs().items()}
    f((1,), (32 * warps,), tuple(bufs[k] for k in ("x", "w1", "w2", "logits", "pred", "times")))
    cp.cuda.runtime.deviceSynchronize()
    return per_tile(bufs["times"].get(), warps)


def simulated(name: str, warps: int, overrides: tuple[str, ...] = ()) -> list[float]:
    bufs = inputs()
    res = simulate_block(PTX, name, 32 * warps, ["x", "w1", "w2", "logits", "pred", "times"], bufs, overrides)
    return per_tile(res.outputs["times"], warps)


def main() -> int:
    args = model_probe_parser(__doc__).parse_args()
    if args.gpu:
        write_result({"tool": os.path.basename(__file__), "device": gpu_name(), "tiles": TILES, "kernels": KERNELS,
                      "cycles_per_tile": gpu_medians(PTX, KERNELS, WARPS, launch, 1)}, args.out)
        return 0
    rec = recorded(RECORDED, "cycles_per_tile")
    print(f"{'kernel':<32}{'warps':<10} cycles per tile (mean, slowest warp): H100 | model")
    for name, what in KERNELS.items():
        for label, warps in WARPS.items():
            hw = " ".join(f"{v:6.1f}" for v in rec.get(f"{name} / {label}", []))
            model = " ".join(f"{v:6.1f}" for v in simulated(name, warps, tuple(args.set)))
            print(f"{what:<32}{label:<10} {hw:>13} | {model}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
