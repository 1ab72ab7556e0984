#!/usr/bin/env python
"""How long a dependent LDS takes while other warps keep the LD/ST pipe busy: on the GPU (--gpu)
and in the simulator (default).  tools/kernels/lds_loaded.cu (its PTX and the committed cubin
beside it): one warp per sub-partition chases 256 dependent LDS.32 (32 lanes, conflict-free)
while 0, 1, 3 or 7 more warps per sub-partition issue 512 iterations of 8 independent LDS.32.
Figures: the chasers' mean cycles per step, the loaders' mean cycles per LDS (each over its own
loop), and the SM's LDS per cycle over all the running warps' loops (the median of 8 launches).  The matmul kernels' warps wait on their LDS results (short_scoreboard) far more on
the H100 than in the model under such a load (`python -m simt_sim.calibrate.pc_stalls compare
w-matmul-pipeline`).

    python tools/lds_loaded.py --gpu --out programs/w-matmul-pipeline/reference/h100-lds-loaded.json
    python tools/lds_loaded.py           # the simulator beside the recorded figures
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import beside, gpu_name, model_probe_parser, recorded, simulate_block, write_result  # noqa: E402
PTX = ROOT / "tools" / "kernels" / "lds_loaded.ptx"
RECORDED = ROOT / "programs" / "w-matmul-pipeline" / "reference" / "h100-lds-loaded.json"
WARPS, STEPS, ITERS = 32, 256, 512
LOADERS = (0, 1, 3, 7)                  # per sub-partition, beside its chaser


def active(loaders: int) -> int:
    return (1 << (4 + 4 * loaders)) - 1


def figures(clk: np.ndarray, loaders: int) -> list[float]:
    c = clk.reshape(WARPS, 2).astype(np.int64)
    chase = float(((c[:4, 1] - c[:4, 0]) / STEPS).mean())
    run = c[:4 + 4 * loaders]
    load = float(((run[4:, 1] - run[4:, 0]) / (8 * ITERS)).mean()) if loaders else 0.0
    per_cycle = (4 * STEPS + 4 * loaders * 8 * ITERS) / float(run[:, 1].max() - run[:, 0].min())
    return [round(chase, 2), round(load, 2), round(per_cycle, 3)]


def measure() -> dict:
    import cupy as cp
    f = cp.RawModule(path=str(PTX)).get_function("k_lds_loaded")
    out = {}
    for loaders in LOADERS:
        runs = []
        for _ in range(9):
            clk, res = cp.zeros(2 * WARPS, cp.int64), cp.zeros(WARPS * 32, cp.uint32)
            f((1,), (WARPS * 32,), (clk, res, np.uint32(active(loaders)), np.int32(STEPS), np.int32(ITERS)))
            cp.cuda.runtime.deviceSynchronize()
            runs.append(figures(clk.get(), loaders))
        out[str(loaders)] = np.median(np.array(runs[1:]), axis=0).round(2).tolist()
        print(loaders, out[str(loaders)], flush=True)
    return {"tool": os.path.basename(__file__), "device": gpu_name(), "figures": out}


def simulated(loaders: int, overrides: tuple[str, ...] = ()) -> list[float]:
    bufs = {"clk": np.zeros(2 * WARPS, np.int64), "out": np.zeros(WARPS * 32, np.uint32)}
    res = simulate_block(PTX, "k_lds_loaded", WARPS * 32, ["clk", "out", active(loaders), STEPS, ITERS], bufs,
                         overrides)
    return figures(res.outputs["clk"], loaders)


def main() -> int:
    args = model_probe_parser(__doc__).parse_args()
    if args.gpu:
        write_result(measure(), args.out)
        return 0
    rec = recorded(RECORDED, "figures")
    print("loaders per sub-partition   chase cycles per step, loaders' cycles per LDS, SM's LDS per cycle: H100 | model")
    for loaders in LOADERS:
        print(f"{loaders:>24}   " + beside(rec.get(str(loaders), []), simulated(loaders, tuple(args.set)), "7.3f", 23))
    return 0


if __name__ == "__main__":
    sys.exit(main())
