"""The SGEMM's shared-memory inner loop alone.  tools/kernels/tile_loop.cu: one block of 4, 8, 16
or 32 warps, each multiplying its row of a 32 x 32 tile of A by the 32 columns of B in shared
memory, 64 tiles: per tile 8 broadcast LDS.128 (A) and 32 LDS.32 (B) feeding 32 FFMAs, as
w-matmul-*'s loop; k_tile_sync with the matmul's barrier after each tile, k_tile_a / k_tile_b with
only A's or B's loads; k_tile_copy / k_tile_store staging each tile from global memory (L1 hits
after the first pass) as w-matmul-pipeline (cp.async double buffering) / w-matmul-plain (LDG, STS)
do, and k_tile_copy_l2 / k_tile_store_l2 from L2 (64 tiles of each, more than L1 holds); k_bar the
barrier alone, k_bar_chain a barrier after 8 dependent FFMAs (1 to 32 warps).  The figures (the
median of 8 launches): cycles per tile over the span from the first warp's start to the last
warp's end, a warp's mean cycles per tile, and the spread of the warps' ends (last - first).  The
SM's barrier unit takes an arrival per 2 cycles (sass.sm_unit_cycles BAR, sass.barrier_latency)."""
from __future__ import annotations

import numpy as np

STAGED = ("k_tile_copy", "k_tile_store", "k_tile_copy_l2", "k_tile_store_l2")     # these read the tiles from g
SOURCE = 2 * 64 * 32 * 32                     # g: 64 tiles of A, then 64 of B (the L1 kernels read 8 of each)
WARPS = (4, 8, 16, 32)
BARRIER_WARPS = (1, 2, 4, 8, 16, 32)
TILES = 64
MEANING = "cycles per tile of the SGEMM's shared-memory loop (alone, synced, staged from L1 / L2), 4-32 warps; a barrier's"
KERNELS = "tile_loop"
FUNCTIONS = {k: k for k in ("k_tile", "k_tile_sync", "k_tile_a", "k_tile_b", "k_tile_copy", "k_tile_store",
                            "k_tile_copy_l2", "k_tile_store_l2", "k_bar", "k_bar_chain")}
SETS = {str(w): w for w in BARRIER_WARPS}
ROWS = tuple(f"{f} / {w}" for f in FUNCTIONS for w in (BARRIER_WARPS if f.startswith("k_bar") else WARPS))
FIGURES = "runs"
FIGURE_NAMES = ("cycles per tile (all warps)", "a warp's cycles per tile", "the ends' spread")
RECORDING = "h200/tile_loop.json"
HEADER = {"tiles": TILES}
KEYS = ("sass.sm_unit_cycles", "sass.barrier_latency", "sass.copy_line_passes")
CHECKS = {"k_tile_copy / 32": 0.02, "k_tile_sync / 8": 0.02, "k_bar / 4": 0.02}
BUFFERS = {"clk": ("int64", 64), "out": ("float32", 1024),
           "g": (np.arange(SOURCE, dtype=np.float32) % 7) / 8}


def launch_of(name: str, warps: int):
    tiles = np.int32(TILES)
    return 32 * warps, (["clk", "out", "g", tiles] if name in STAGED else ["clk", "out", tiles])


def figures(out, name: str, warps: int) -> list[float]:
    c = np.asarray(out["clk"])[: 2 * warps].reshape(warps, 2).astype(np.int64)
    span = float(c[:, 1].max() - c[:, 0].min()) / TILES
    own = float((c[:, 1] - c[:, 0]).mean()) / TILES
    return [round(span, 2), round(own, 2), float(c[:, 1].max() - c[:, 1].min())]
