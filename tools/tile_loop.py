#!/usr/bin/env python
"""The SGEMM's shared-memory inner loop alone, on the GPU (--gpu) and in the simulator (default).
tools/kernels/tile_loop.cu (its PTX and the committed cubin beside it): one block of 4, 8, 16 or
32 warps, each multiplying its row of a 32 x 32 tile of A by the 32 columns of B in shared memory,
64 tiles: per tile 8 broadcast LDS.128 (A) and 32 LDS.32 (B) feeding 32 FFMAs, as w-matmul-*'s
loop; k_tile_sync with the matmul's barrier after each tile, k_tile_a / k_tile_b with only A's or
B's loads; k_tile_copy / k_tile_store staging each tile from global memory (L1 hits after the first
pass) as w-matmul-pipeline (cp.async double buffering) / w-matmul-plain (LDG, STS) do, and
k_tile_copy_l2 / k_tile_store_l2 from L2 (64 tiles of each, more than L1 holds); k_bar the
barrier alone, k_bar_chain a barrier after 8 dependent FFMAs (1 to 32 warps).  Figures (the median of 8 launches): cycles per tile over the span from the first
warp's start to the last warp's end, a warp's mean cycles per tile, and the spread of the warps'
ends (last - first, cycles).  The matmul kernels' block spans are 4-8% shorter in the model than on
the H100, and w-matmul-pipeline's loop is bound by these loads.

    python tools/tile_loop.py --gpu --out programs/w-matmul-pipeline/reference/h100-tile-loop.json
    python tools/tile_loop.py           # the simulator beside the recorded figures
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import beside, gpu_medians, model_probe_parser, recorded, simulate_block, write_result  # noqa: E402
PTX = ROOT / "tools" / "kernels" / "tile_loop.ptx"
RECORDED = ROOT / "programs" / "w-matmul-pipeline" / "reference" / "h100-tile-loop.json"
KERNELS = ("k_tile", "k_tile_sync", "k_tile_a", "k_tile_b", "k_tile_copy", "k_tile_store", "k_tile_copy_l2",
           "k_tile_store_l2", "k_bar", "k_bar_chain")
STAGED = ("k_tile_copy", "k_tile_store", "k_tile_copy_l2", "k_tile_store_l2")     # these read the tiles from g
SOURCE = 2 * 64 * 32 * 32                     # g: 64 tiles of A, then 64 of B (the L1 kernels read 8 of each)
WARPS = (4, 8, 16, 32)
BARRIER_WARPS = (1, 2, 4, 8, 16, 32)
TILES = 64


def figures(clk: np.ndarray, warps: int) -> list[float]:
    c = np.asarray(clk)[: 2 * warps].reshape(warps, 2).astype(np.int64)
    span = float(c[:, 1].max() - c[:, 0].min()) / TILES
    own = float((c[:, 1] - c[:, 0]).mean()) / TILES
    return [round(span, 2), round(own, 2), float(c[:, 1].max() - c[:, 1].min())]


def source() -> np.ndarray:
    return (np.arange(SOURCE, dtype=np.float32) % 7) / 8


def launch(cp, f, name: str, warps: int) -> list[float]:
    clk, out = cp.zeros(64, cp.int64), cp.zeros(1024, cp.float32)
    g = cp.asarray(source())
    f((1,), (32 * warps,), (clk, out, g, np.int32(TILES)) if name in STAGED else (clk, out, np.int32(TILES)))
    cp.cuda.runtime.deviceSynchronize()
    return figures(clk.get(), warps)


def simulated(name: str, warps: int, overrides: tuple[str, ...] = ()) -> list[float]:
    bufs = {"clk": np.zeros(64, np.int64), "out": np.zeros(1024, np.float32), "g": source()}
    args = ["clk", "out", "g", TILES] if name in STAGED else ["clk", "out", TILES]
    res = simulate_block(PTX, name, 32 * warps, args, bufs, overrides)
    return figures(res.outputs["clk"], warps)


def main() -> int:
    args = model_probe_parser(__doc__).parse_args()
    if args.gpu:
        from probe_output import gpu_name
        runs = gpu_medians(PTX, KERNELS[:-2], {str(w): w for w in WARPS}, launch, 2)
        runs.update(gpu_medians(PTX, KERNELS[-2:], {str(w): w for w in BARRIER_WARPS}, launch, 2))
        write_result({"tool": os.path.basename(__file__), "device": gpu_name(), "tiles": TILES, "runs": runs}, args.out)
        return 0
    rec = recorded(RECORDED, "runs")
    print("kernel / warps      cycles per tile (all warps), a warp's cycles per tile, ends' spread: H100 | model")
    for name in KERNELS:
        for warps in (BARRIER_WARPS if name.startswith("k_bar") else WARPS):
            key = f"{name} / {warps}"
            print(f"{key:<18} " + beside(rec.get(key, []), simulated(name, warps, tuple(args.set)), "8.1f", 26))
    return 0


if __name__ == "__main__":
    sys.exit(main())
