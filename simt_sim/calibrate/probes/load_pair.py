"""Two loads a warp from DRAM: in which order do a warp's loads past L1 deliver?  w-matmul-plain's
warps each load a line of A and then one of B, and store B's value to shared memory before A's.
tools/kernels/load_pair.cu: a grid of 1 or 132 blocks of 32 warps, each warp loading line a, then
line b (ld.global.cg, 32 lanes, b 2 MiB after a); k_load_pair_l2 and _l1 read b once before
(ld.global.cg / .ca), so that it hits L2 / L1 behind a's DRAM miss; _nc, _nc_l2 and _plain load
both lines as ld.global.nc (LDG.E.CONSTANT, b from DRAM or L2) and ld.global (LDG.E).  Per kernel
and grid: the mean cycles until b has arrived, the mean further wait for a, the share of warps whose
a came more than 100 cycles after b, and the share whose b came more than 150 cycles above the
median b.  On the GPU L2 is pushed out by a 256 MiB read before each of 9 repeats at 4 bases; the
model runs the grid once on the whole h100 config with its caches flushed (host.caches_flushed).
On the H200 a's further wait is 4-5 cycles, never over 100: sass.loads_in_order."""
from __future__ import annotations

import numpy as np

GRIDS, REPEATS, BASES = (1, 132), 9, 4
REGION = 1 << 20                        # floats between blocks' first lines (4 MiB)
HALF = 1 << 19                          # floats from a warp's line a to its line b (2 MiB)
LATE, STRAY = 100, 150
MEANING = "cycles until a warp's second load (DRAM, L2, L1) arrives and its first after it, 1 or 132 blocks"
KERNELS = "load_pair"
FUNCTIONS = {"k_load_pair": "ld.global.cg, b from DRAM", "k_load_pair_l2": "ld.global.cg, b from L2",
             "k_load_pair_l1": "ld.global.cg, b from L1 (.ca before)", "k_load_pair_nc": "ld.global.nc, b from DRAM",
             "k_load_pair_nc_l2": "ld.global.nc, b from L2", "k_load_pair_plain": "ld.global, b from DRAM"}
SETS = {str(grid): grid for grid in GRIDS}
FIGURES = "figures"
FIGURE_NAMES = ("mean cycles to b", "mean further wait for a", f"share of a over {LATE} after b",
                f"share of b over {STRAY} above the median")
RECORDING = "h200/load_pair.json"
# measured for sass.loads_in_order, which h100.yaml keeps off all the same (docs/calibration-log.md:
# with it regroup-lbm's gathers take 11-17% longer), so no --fit: the recording would pick on
KEYS = ("sass.loads_in_order",)


def waits(times: np.ndarray, grid: int) -> np.ndarray:
    """[block, warp, (b's arrival, a's further wait)] in cycles."""
    t = times.reshape(-1, 32, 3)[:grid].astype(np.int64)
    return np.stack([(t[..., 1] - t[..., 0]) % (1 << 32), (t[..., 2] - t[..., 1]) % (1 << 32)], axis=-1)


def figures_of(w: np.ndarray) -> list[float]:
    """w [..., 2] -> [mean b arrival, mean further wait for a, share of a later than b by LATE,
    share of b more than STRAY above the median b]."""
    b, a = w[..., 0], w[..., 1]
    return [round(float(b.mean()), 1), round(float(a.mean()), 1), round(float((a > LATE).mean()), 4),
            round(float((b - np.median(b) > STRAY).mean()), 4)]


def simulated(name: str, grid: int, overrides=()) -> list[float]:
    """The model's figures for one launch of `grid` blocks on the h100 config, caches flushed."""
    from simt_sim.calibrate.probes.base import ptx_of, run_block
    bufs = {"x": np.zeros(grid * REGION, np.float32), "times": np.zeros(3 * 32 * grid, np.uint32)}
    out = run_block(ptx_of(KERNELS), name, 1024, ["x", "times", REGION, HALF], bufs, overrides, grid=grid,
                    machine=("host.caches_flushed=true",))
    return figures_of(waits(out["times"], grid))


def measure() -> dict:
    import cupy as cp
    from simt_sim.calibrate.probes.base import gpu_name, ptx_of
    mod = cp.RawModule(path=str(ptx_of(KERNELS)))
    x = cp.zeros(max(GRIDS) * REGION + BASES * (1 << 16), cp.float32)
    times = cp.zeros(3 * 32 * max(GRIDS), cp.uint32)
    junk = cp.ones(1 << 26, cp.float32)
    out = {}
    for name in FUNCTIONS:
        f = mod.get_function(name)
        for grid in GRIDS:
            reps = []
            for base in range(BASES):
                args = (x[base * (1 << 16):], times, np.uint64(REGION), np.uint64(HALF))
                for _ in range(REPEATS):
                    float(junk.sum())
                    f((grid,), (1024,), args)
                    cp.cuda.runtime.deviceSynchronize()
                    reps.append(waits(times.get(), grid))
            out[f"{name} / {grid}"] = figures_of(np.array(reps))
            print(name, grid, out[f"{name} / {grid}"], flush=True)
    return {"probe": "load_pair", "device": gpu_name(), FIGURES: out}
