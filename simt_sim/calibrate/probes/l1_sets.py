"""Does the L1 data cache keep lines whose addresses lie a power of two apart?
tools/kernels/l1_sets.cu: one thread chases a chain of `count` words `stride` bytes apart twice
(LDG.E.CONSTANT, cached in L1) and times the second pass; 512 to 2,048 lines 128 B or 64 KiB apart:
how many it holds; and (GPU only) 128 to 2,048 lines with the kernel's preferred shared-memory
carve-out set to 0, 25, 50 or 100% (recorded under "with_carveout_pct"; the model's L1 is
memory.l1.size_kb whatever the carve-out).  The figure: cycles per load of the second pass (about
38 when the lines stayed in L1, some 300 when they came from L2 again), the median of 5 launches.
A 4-way L1 of 512 sets would put lines 64 KiB apart into one set; memory.l1.hash_sets keeps them."""
from __future__ import annotations

import numpy as np

STRIDES = (128, 4096, 65536, 131072, 1 << 20)
COUNTS = (2, 4, 6, 8, 16, 32, 64, 128)
CAPACITY = {128: (512, 1536, 1792, 2048), 65536: (512, 1536, 1792, 2048)}   # how many lines the L1 holds
CARVEOUTS = (0, 25, 50, 100)                # cudaFuncAttributePreferredSharedMemoryCarveout, percent
CARVEOUT_COUNTS = (128, 256, 512, 1024, 1536, 1792, 2048)
LAUNCHES = 5
MEANING = "cycles per L1-hit load of a chain of 2-2,048 lines 128 B to 1 MiB apart: which the L1 keeps"
KERNELS = "l1_sets"
FUNCTIONS = {"l1_chase": "chase, second pass"}
SETS = {f"{s}/{c}": (s, c) for s, c in [(s, c) for s in STRIDES for c in COUNTS]
        + [(s, c) for s, counts in CAPACITY.items() for c in counts]}
FIGURES, FIGURE_NAMES = "cycles_per_load", ("cycles per load of the second pass (stride bytes / lines)",)
RECORDING = "h200/l1_sets.json"
KEYS = ("memory.l1.hash_sets", "memory.l1.size_kb")
FIT = {"memory.l1.hash_sets": (False, True)}
FIT_ROWS = ("l1_chase / 1048576/128",)
CHECKS = {"l1_chase / 128/128": 0.2}


def chain(stride: int, count: int) -> np.ndarray:
    """count words stride bytes apart, each the index of the next (the last back to the first)."""
    step = stride // 4
    words = np.zeros(count * step, np.uint32)
    words[np.arange(count) * step] = (np.arange(1, count + 1) % count) * step
    return words


def row_key(name: str, label: str) -> str:
    return label


def BUFFERS(name: str, case) -> dict:
    return {"chain": chain(*case), "clk": ("int64", 2)}


def launch_of(name: str, case):
    return 1, ["chain", case[1], "clk"]


def figures(out, name: str, case) -> list[float]:
    return [float(out["clk"][0]) / case[1]]


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
    from simt_sim.calibrate.probes.base import gpu_name, ptx_of
    f = cp.RawModule(path=str(ptx_of(KERNELS))).get_function("l1_chase")
    out = {label: gpu_cycles_per_load(cp, f, chain(*case), case[1]) for label, case in SETS.items()}
    carve = {}
    for pct in CARVEOUTS:
        f.preferred_shared_memory_carveout = pct
        for count in CARVEOUT_COUNTS:
            carve[f"{pct}/{count}"] = gpu_cycles_per_load(cp, f, chain(128, count), count)
    return {"probe": "l1_sets", "device": gpu_name(), "clock": "SM cycles at the plain launch's clock",
            "cycles_per_load": out, "with_carveout_pct": carve}
