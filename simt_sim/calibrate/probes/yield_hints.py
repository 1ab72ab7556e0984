"""Yield hints and a busy scheduler's fairness, with independent chains: t-fp64-issue-f0's loop (8
independent FMUL chains per thread, 8 warps per sub-partition, 256 iterations; ptxas sets the yield
hint on the loop's last FMUL only) run from three committed cubins: as ptxas made it
(tools/kernels/yield_f0), with the hint set on every FMUL (yield_f0_all) and with none in the loop
(yield_f0_none; their sass-patch.yaml files).  Each warp records its start and end; the figures:
the span from the first start, then each warp's end (warp w sits in slot w // 4 of sub-partition
w % 4: slot_ends gives each slot's mean).  On the H100 ptxas's hints end the slots within 62
cycles of each other, a hint on every FMUL ends the higher slots first (slot 7 5.8% before slot 0);
h100.yaml's grr runs the three alike, gwf grades the every-FMUL variant weakly."""
from __future__ import annotations

import numpy as np

THREADS, ITERS = 1024, 256
MEANING = "each warp's end, 8 warps/SMSP of independent FMUL chains, with ptxas's, every or no yield hint"
KERNELS = "yield_f0"
CUDA_SOURCE = "programs/probes/t-fp64-issue-f0/kernel.cu"       # yield_f0.ptx is that program's PTX
FUNCTIONS = {"yield_f0": "ptxas's hints", "yield_f0_all": "a hint on every FMUL",
             "yield_f0_none": "no hint in the loop"}
SETS = {"8 warps/SMSP": THREADS}
FIGURES, DECIMALS = "cycles", 1
FIGURE_NAMES = ("span", "each warp's end, from the first start")
RECORDING = "h100/yield_hints.json"
HEADER = {"iters": ITERS, "figures": ["span", "each warp's end"], "kernels": FUNCTIONS}
KEYS = ("scheduler.policy",)
BUFFERS = {"inp": np.random.default_rng(3).uniform(0.9, 1.1, THREADS).astype(np.float32),
           "out32": ("float32", THREADS), "out64": ("float64", THREADS), "clk": ("int64", 64)}


def kernel_of(name: str):
    """Each variant is its own PTX and committed cubin (the patched ones from their sass-patch.yaml),
    with the one kernel fp64_issue."""
    return name, "fp64_issue"


def launch_of(name: str, threads: int):
    return threads, ["inp", "out32", "out64", "clk", np.float32(0.9999), np.float64(0.9999),
                     np.uint32(1664525), np.int32(ITERS)]


def figures(out, name: str, threads: int) -> list[float]:
    """The span from the first start, then each warp's end."""
    c = np.asarray(out["clk"])[: 2 * threads // 32].reshape(-1, 2).astype(np.int64)
    ends = c[:, 1] - c[:, 0].min()
    return [float(ends.max()), *map(float, ends)]


def slot_ends(fig) -> np.ndarray:
    """Each scheduler slot's mean end, from the span and every warp's end (warp w sits in slot
    w // 4 of sub-partition w % 4)."""
    return np.asarray(fig[1:], float).reshape(-1, 4).mean(axis=1)


def measure() -> dict:
    """On the GPU: each variant from its committed cubin (the patched SASS exists only there), the
    median of eight launches after one."""
    from simt_sim.calibrate.probes.base import fresh, gpu_medians, gpu_name, ptx_of
    from simt_sim.frontend.sass import committed_cubin_path

    def launch(cp, f, name, threads):
        bufs = {n: cp.asarray(fresh(spec)) for n, spec in BUFFERS.items()}
        _, args = launch_of(name, threads)
        f((1,), (threads,), tuple(bufs[a] if isinstance(a, str) else a for a in args))
        cp.cuda.runtime.deviceSynchronize()
        return figures({"clk": bufs["clk"].get()}, name, threads)
    cycles = {}
    for variant in FUNCTIONS:
        rows = gpu_medians(committed_cubin_path(ptx_of(variant)), ["fp64_issue"], SETS, launch, DECIMALS)
        cycles.update({f"{variant} / {label}": v for label, v in
                       ((r.split(" / ", 1)[1], v) for r, v in rows.items())})
    return {"probe": "yield_hints", "device": gpu_name(), **HEADER, FIGURES: cycles}
