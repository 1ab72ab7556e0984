"""How fast one SM takes lines from L2.  tools/kernels/l2_rate.cu: every warp of a block loads 32
lines with ld.global.cg, 8 independent loads at a time; a first launch brings the lines into L2,
the second is timed (all L2 hits, none in L1).  1 to 32 warps a block, one block or one on every
SM (132).  Per set ("BLOCKS / WARPS"), on the GPU the median over 5 timed launches, in the model
the second of two launches on the whole h100 config: lines per cycle per SM (a block's lines over
its span, first warp's start to last warp's end, the mean over the blocks) and a warp's mean
cycles from its first load to its last line.

Recorded on an H200 (the H100's GH100 L2): one SM's lines per cycle are the model's within 6%
(latency- and issue-bound: 0.024-0.334); on all 132 SMs the L2 gives each up to 0.238, which
sass.memory.l2.sectors_per_cycle 144 gives within 6% (88: 27% short with 16 warps)."""
from __future__ import annotations

import numpy as np

MEANING = "L2 lines per cycle per SM and a warp's cycles for 32 L2 hits, 1-32 warps, 1 or 132 blocks"
KERNELS = "l2_rate"
WARPS, GRIDS, STEPS = (1, 4, 8, 16, 32), (1, 132), 4
LINES = 8 * STEPS                     # per warp
FUNCTIONS = {"k_l2_rate": "32 ld.global.cg L2 hits a warp, 8 at a time"}
SETS = {f"{grid} / {warps}": (grid, warps) for grid in GRIDS for warps in WARPS}
FIGURES = "figures"
FIGURE_NAMES = ("lines per cycle per SM", "a warp's cycles for its 32 lines")
RECORDING = "h200/l2_rate.json"
KEYS = ("sass.memory.l2.sectors_per_cycle",)
# (the 132-block rows pin it; they run too long for the registry's fit: tests/test_microbench.py checks them)
CHECKS = {f"k_l2_rate / 1 / {warps}": 0.06 for warps in (1, 32)}


def row_key(name: str, label: str) -> str:
    """The recording names a row by its set alone ("BLOCKS / WARPS")."""
    return label


def figures_of(times: np.ndarray, grid: int, warps: int) -> list[float]:
    t = times.reshape(-1, 32, 2)[:grid, :warps].astype(np.int64)
    span = ((t[:, :, 1].max(axis=1) - t[:, :, 0].min(axis=1)) % (1 << 32)).astype(float)
    own = ((t[:, :, 1] - t[:, :, 0]) % (1 << 32)).astype(float)
    return [round(float(np.mean(warps * LINES / span)), 4), round(float(own.mean()), 1)]


def buffers(grid: int, warps: int) -> dict:
    return {"x": np.ones(grid * warps * LINES * 32, np.float32), "times": np.zeros(64 * grid, np.uint32),
            "out": np.zeros(grid * 32 * warps, np.float32)}


def simulated(name: str, at: tuple[int, int], overrides=()) -> list[float]:
    """The second of two launches on the h100 config (the first brings the lines into L2)."""
    from simt_sim.calibrate.probes.base import ptx_of, run_block
    grid, warps = at
    out = run_block(ptx_of(KERNELS), name, 32 * warps, ["x", "times", "out", STEPS], buffers(grid, warps), overrides,
                    launches=2, grid=grid, machine=())
    return figures_of(out["times"], grid, warps)


def measure() -> dict:
    import cupy as cp
    from simt_sim.calibrate.probes.base import gpu_name, ptx_of
    f = cp.RawModule(path=str(ptx_of(KERNELS))).get_function("k_l2_rate")
    out = {}
    for grid in GRIDS:
        for warps in WARPS:
            b = {k: cp.asarray(v) for k, v in buffers(grid, warps).items()}
            args = (b["x"], b["times"], b["out"], np.int32(STEPS))
            runs = []
            for i in range(6):
                f((grid,), (32 * warps,), args)
                cp.cuda.runtime.deviceSynchronize()
                if i:
                    runs.append(figures_of(b["times"].get(), grid, warps))
            out[f"{grid} / {warps}"] = np.median(np.array(runs), axis=0).round(4).tolist()
            print(grid, warps, out[f"{grid} / {warps}"], flush=True)
    return {"probe": "l2_rate", "device": gpu_name(), FIGURES: out}
