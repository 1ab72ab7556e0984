#!/usr/bin/env python
"""Does the L1 data cache keep lines whose addresses lie a power of two apart, on the GPU (--gpu)
and in the simulator (default)?  tools/kernels/l1_sets.cu (its PTX and the committed cubin beside
it): one thread chases a chain of `count` words `stride` bytes apart twice (LDG.E.CONSTANT, cached
in L1) and times the second pass; 512 to 2,048 lines 128 B or 64 KiB apart: how many it holds;
and 128 to 2,048 lines with the kernel's preferred shared-memory carve-out set to 0, 25, 50 or
100% (recorded under "with_carveout_pct"; the model's L1 is memory.l1.size_kb whatever the carve-out).  Figures: cycles per load of the second pass (about 38 when the
lines stayed in L1, some 300 when they came from L2 again), the median of 5 launches.

    python tools/l1_sets.py --gpu --out programs/t-ldg-path/reference/h100-l1-sets.json
    python tools/l1_sets.py           # the simulator beside the recorded figures
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import gpu_name, model_probe_parser, recorded, simulate_block, write_result  # noqa: E402
PTX = ROOT / "tools" / "kernels" / "l1_sets.ptx"
RECORDED = ROOT / "programs" / "t-ldg-path" / "reference" / "h100-l1-sets.json"
STRIDES = (128, 4096, 65536, 131072, 1 << 20)
COUNTS = (2, 4, 6, 8, 16, 32, 64, 128)
CAPACITY = {128: (512, 1536, 1792, 2048), 65536: (512, 1536, 1792, 2048)}   # how many lines the L1 holds
CARVEOUTS = (0, 25, 50, 100)                # cudaFuncAttributePreferredSharedMemoryCarveout, percent
CARVEOUT_COUNTS = (128, 256, 512, 1024, 1536, 1792, 2048)
LAUNCHES = 5


def chain(stride: int, count: int) -> np.ndarray:
    """count words stride bytes apart, each the index of the next (the last back to the first)."""
    step = stride // 4
    words = np.zeros(count * step, np.uint32)
    words[np.arange(count) * step] = (np.arange(1, count + 1) % count) * step
    return words


def key(stride: int, count: int) -> str:
    return f"{stride}/{count}"


def cases() -> list[tuple[int, int]]:
    return [(s, c) for s in STRIDES for c in COUNTS] + [(s, c) for s, counts in CAPACITY.items() for c in counts]


def gpu_cycles_per_load(cp, f, words: np.ndarray, count: int) -> float:
    """The GPU's second-pass cycles per load over LAUNCHES launches (median) of a chain of
    `count` lines (words: from the chain's first word, each the index of the next)."""
    words = cp.asarray(words)
    runs = []
    for _ in range(LAUNCHES):
        clk = cp.zeros(2, cp.int64)
        f((1,), (1,), (words, np.int32(count), clk))
        cp.cuda.runtime.deviceSynchronize()
        runs.append(float(clk.get()[0]) / count)
    return round(float(np.median(runs)), 1)


def measure() -> dict:
    import cupy as cp
    f = cp.RawModule(path=str(PTX)).get_function("l1_chase")
    out = {}
    for stride, count in cases():
        out[key(stride, count)] = gpu_cycles_per_load(cp, f, chain(stride, count), count)
        print(stride, count, out[key(stride, count)], flush=True)
    carve = {}
    for pct in CARVEOUTS:
        f.preferred_shared_memory_carveout = pct
        for count in CARVEOUT_COUNTS:
            carve[f"{pct}/{count}"] = gpu_cycles_per_load(cp, f, chain(128, count), count)
            print("carveout", pct, count, carve[f"{pct}/{count}"], flush=True)
    return {"tool": os.path.basename(__file__), "device": gpu_name(), "clock": "SM cycles at the plain launch's clock",
            "cycles_per_load": out, "with_carveout_pct": carve}


def simulated(stride: int, count: int, overrides=()) -> float:
    return simulated_chain(chain(stride, count), count, overrides)


def simulated_chain(words: np.ndarray, count: int, overrides=()) -> float:
    """The model's second-pass cycles per load of a chain (as gpu_cycles_per_load's)."""
    res = simulate_block(PTX, "l1_chase", 1, ["chain", count, "clk"],
                         {"chain": words, "clk": np.zeros(2, np.int64)}, overrides)
    return float(res.outputs["clk"][0]) / count


def main() -> int:
    args = model_probe_parser(__doc__).parse_args()
    if args.gpu:
        write_result(measure(), args.out)
        return 0
    rec = recorded(RECORDED, "cycles_per_load")
    print(f"{'stride':>8} {'lines':>6}  cycles per load: H100  model")
    for stride, count in cases():
        print(f"{stride:>8} {count:>6}  {rec.get(key(stride, count), float('nan')):21.1f} "
              f"{simulated(stride, count, tuple(args.set)):6.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
