#!/usr/bin/env python
"""Where seed 003's plain loop spends an iteration with 1 to 8 warps a sub-partition: on the GPU
(--gpu) and in the simulator (default).  tools/kernels/pipe_phases.cu is w-pipe-plain's loop
(load a line, then 8 dependent mixing rounds) with clocks around the load's wait and around the
chain; 4 blocks (one an SM) of 128 to 1,024 threads, 64 iterations, the second of two launches
with fresh copies of the input between them (the host's copies in L2, as the workload's block
clocks were recorded: tools/span_conditions.py's warm runs).  Per set: the mean iteration, its
load wait and chain, and how many other warps of the sub-partition are in their chain while a
warp is in its own (iterations 32-39): 0 if the warps' chains never meet, 7 if eight warps
compute in lockstep.  And the same loop without its load (`chain_only`, 256 iterations): the
cycles a warp-iteration, from which the chain's own contention shows.

    python tools/pipe_phases.py --gpu --out programs/workloads/w-pipe-plain-w8/reference/h100-pipe-phases.json
    python tools/pipe_phases.py                  # the simulator beside the recording
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from simt_sim.frontend.sass import committed_cubin_path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import model_probe_parser, recorded, write_result  # noqa: E402  (tools/, beside this file)
PTX = ROOT / "tools" / "kernels" / "pipe_phases.ptx"
RECORDED = ROOT / "programs" / "workloads" / "w-pipe-plain-w8" / "reference" / "h100-pipe-phases.json"
BLOCKS, ITERS, FIRST, WINDOW = 4, 64, 32, 8          # as in the kernel (FIRST, WINDOW)
CHAIN_ITERS = 256
SETS = {"1 warp/SMSP": 128, "2 warps/SMSP": 256, "4 warps/SMSP": 512, "8 warps/SMSP": 1024}


def buffers(threads: int) -> dict:
    n = BLOCKS * threads
    warps = n // 32
    return {"x": np.random.default_rng(5).integers(0, 2**32, ITERS * n, dtype=np.uint64).astype(np.uint32),
            "out": np.zeros(n, np.uint32), "rec": np.zeros(warps * WINDOW * 3, np.int64),
            "info": np.zeros(warps * 4, np.int64)}


def args(threads: int) -> list:
    return ["x", "out", "rec", "info", BLOCKS * threads, ITERS]


def phases(rec, info) -> dict:
    """The figures of one launch: mean iteration, load wait and chain (cycles), and the mean number
    of the sub-partition's other warps in their chain during a warp's chain (the window)."""
    rec = np.asarray(rec, np.int64).reshape(-1, WINDOW, 3)
    info = np.asarray(info, np.int64).reshape(-1, 4)
    wait, chain = info[:, 0] / ITERS, info[:, 1] / ITERS
    smsp = info[:, 2] * 4 + info[:, 3] % 4
    overlap = []
    for w in range(len(rec)):
        others = rec[(smsp == smsp[w]) & (np.arange(len(rec)) != w)]
        for k in range(WINDOW):
            t1, t2 = rec[w, k, 1], rec[w, k, 2]
            inside = np.clip(np.minimum(others[:, :, 2], t2) - np.maximum(others[:, :, 1], t1), 0, None)
            overlap.append(inside.sum() / max(t2 - t1, 1))
    period = np.diff(rec[:, :, 0], axis=1).mean()
    return {"iteration": round(float(period), 1), "load_wait": round(float(wait.mean()), 1),
            "chain": round(float(chain.mean()), 1), "chains_beside": round(float(np.mean(overlap)), 2)}


def chain_buffers(threads: int) -> dict:
    return {"out": np.zeros(BLOCKS * threads, np.uint32), "info": np.zeros(BLOCKS * threads // 32 * 4, np.int64)}


def chain_figures(info) -> tuple[float, list[float]]:
    """chain_only's cycles a warp-iteration: the mean over the warps, and [the fastest warp's, the
    slowest's] (even shares: the two alike)."""
    per_warp = np.asarray(info, np.int64).reshape(-1, 4)[:, 1] / CHAIN_ITERS
    return round(float(per_warp.mean()), 2), [round(float(per_warp.min()), 2), round(float(per_warp.max()), 2)]


def measured_chain(cp, mod) -> tuple[dict, dict]:
    f = mod.get_function("chain_only")
    out, ranges = {}, {}
    for label, threads in SETS.items():
        runs = []
        for _ in range(5):
            b = {k: cp.asarray(v) for k, v in chain_buffers(threads).items()}
            f((BLOCKS,), (threads,), (b["out"], b["info"], np.int32(CHAIN_ITERS)))
            cp.cuda.runtime.deviceSynchronize()
            mean, (fastest, slowest) = chain_figures(b["info"].get())
            runs.append([mean, fastest, slowest])
        out[label] = float(np.median([r[0] for r in runs]))
        ranges[label] = np.median(np.array(runs)[:, 1:], axis=0).tolist()
    return out, ranges


def measured() -> tuple[dict, tuple[dict, dict]]:
    import cupy as cp
    mod = cp.RawModule(path=str(committed_cubin_path(PTX)))
    f = mod.get_function("pipe_phases")
    out = {}
    for label, threads in SETS.items():
        runs = []
        for _ in range(5):
            host = buffers(threads)
            b = {k: cp.asarray(v) for k, v in host.items()}
            a = tuple(b[x] if isinstance(x, str) else np.int32(x) for x in args(threads))
            f((BLOCKS,), (threads,), a)
            b["x"].set(host["x"])                       # fresh copies over the lines L2 holds
            f((BLOCKS,), (threads,), a)
            cp.cuda.runtime.deviceSynchronize()
            runs.append(phases(b["rec"].get(), b["info"].get()))
        out[label] = {k: float(np.median([r[k] for r in runs])) for k in runs[0]}
    return out, measured_chain(cp, mod)


def model_outputs(kernel: str, threads: int, kernel_args: list, bufs: dict, overrides: tuple[str, ...]) -> dict:
    """One timed launch of the kernel (4 blocks of `threads`) in the model: its buffers after it."""
    import simt_sim
    prog = simt_sim.load_program(str(PTX), kernel, isa="sass")
    cfg = simt_sim.load_config("h100", list(overrides))
    return simt_sim.simulate(simt_sim.Launch(prog, BLOCKS, threads, kernel_args), bufs, cfg).outputs


def simulated(threads: int, overrides: tuple[str, ...] = ()) -> dict:
    out = model_outputs("pipe_phases", threads, args(threads), buffers(threads), overrides)
    return phases(out["rec"], out["info"])


def simulated_chain(threads: int, overrides: tuple[str, ...] = ()) -> tuple[float, list[float]]:
    out = model_outputs("chain_only", threads, ["out", "info", CHAIN_ITERS], chain_buffers(threads), overrides)
    return chain_figures(out["info"])


def main() -> int:
    ap = model_probe_parser(__doc__)
    a = ap.parse_args()
    if a.gpu:
        phase_figures, (chain_figures, chain_ranges) = measured()
        write_result({"tool": Path(__file__).name, "blocks": BLOCKS, "iters": ITERS, "chain_iters": CHAIN_ITERS,
                      "sets": SETS, "phases": phase_figures, "chain_only": chain_figures,
                      "chain_only_range": chain_ranges}, a.out)
        return 0
    rec, rec_chain = recorded(RECORDED, "phases"), recorded(RECORDED, "chain_only")
    rec_range = recorded(RECORDED, "chain_only_range")
    print("cycles per iteration (load wait + chain), and other warps of the sub-partition in their chain "
          "during a warp's chain: H100 / model")
    for label, threads in SETS.items():
        model, hw = simulated(threads, tuple(a.set)), rec.get(label)
        cells = [f"{k} {hw[k] if hw else float('nan'):7.1f} / {model[k]:<7.1f}" for k in model]
        print(f"  {label:<14}" + "  ".join(cells))
    print("chain_only: cycles a warp-iteration, the mean and [fastest, slowest warp]: H100 / model")
    for label, threads in SETS.items():
        mean, (fast, slow) = simulated_chain(threads, tuple(a.set))
        hw_fast, hw_slow = rec_range.get(label, [float("nan")] * 2)
        print(f"  {label:<14}{rec_chain.get(label, float('nan')):7.2f} / {mean:<7.2f}"
              f"  [{hw_fast:.1f}, {hw_slow:.1f}] / [{fast:.1f}, {slow:.1f}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
