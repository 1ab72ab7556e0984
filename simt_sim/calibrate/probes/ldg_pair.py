"""When the second of a warp's two back-to-back global loads returns, alone and beside other warps'
loads.  Every running warp of one block of 32 issues two LDG.E (one 128-byte line each, 1 MiB
apart), then reads the clock once each load's data is in (tools/kernels/ldg_pair.cu).  The lines
come from DRAM (a launch on lines no launch has touched) or from L2 (the same lines a second time:
the model runs the launch twice on the same buffers and caches).  Running warps: 1; 4, one per
sub-partition; 16; 32.  Figures: the running warps' mean cycles from the first clock read until the
first load's data is in (plus a shared store's read), their mean and longest cycles from there
until the second's is; on the GPU the median of 9 such launches, each on lines of its own."""
from __future__ import annotations

import numpy as np

WARPS = 32
GAP = 1 << 18                           # floats between a warp's two lines (1 MiB)
SPAN = 2 * GAP                          # floats a launch's lines take
ACTIVE = {"1 warp": 0x1, "4 warps, 4 sub-partitions": 0xF, "16 warps": 0xFFFF, "32 warps": 0xFFFFFFFF}
SOURCES = ("DRAM", "L2")
RUNS = 9
MEANING = "cycles until a warp's first of two LDGs 1 MiB apart returns, and the second after it (DRAM / L2, 1-32 warps)"
KERNELS = "ldg_pair"
FUNCTIONS = {"k_ldg_pair": "two LDG.E of lines 1 MiB apart, the clock as each one's data is in"}
SETS = {f"{source} / {label}": (source, active) for source in SOURCES for label, active in ACTIVE.items()}
FIGURES = "figures"
FIGURE_NAMES = ("mean cycles to the first load's data", "mean cycles from it to the second's", "longest of those")
RECORDING = "h200/ldg_pair.json"
# with 16 warps loading from L2 the model's three figures lie within 11% of the H200's; not its DRAM
# rows (some 290 cycles to the first line against the H200's 610-750: a first touch of fresh
# memory, which the model does not model) nor a lone warp's second line (133 against 94)
CHECKS = {"k_ldg_pair / L2 / 16 warps": 0.11}
BUFFERS = {"x": ("float32", SPAN), "times": ("uint32", 3 * WARPS)}


def row_key(name: str, label: str) -> str:
    return label


def launches(name: str, case) -> int:
    """Launches in a row on the same buffers and caches: a second one finds the lines in L2."""
    return 1 if case[0] == "DRAM" else 2


def launch_of(name: str, case):
    return WARPS * 32, ["x", "times", case[1], 0, GAP]


def figures(out, name: str, case) -> list[float]:
    """[mean first wait, mean second-after-first, longest second-after-first] over the running warps."""
    active = case[1]
    t = np.asarray(out["times"]).reshape(WARPS, 3).astype(np.int64)[[w for w in range(WARPS) if (active >> w) & 1]]
    first, second = (t[:, 1] - t[:, 0]) % (1 << 32), (t[:, 2] - t[:, 1]) % (1 << 32)
    return [round(float(first.mean()), 1), round(float(second.mean()), 1), float(second.max())]


def measure() -> dict:
    """On the GPU: per row the median of RUNS launches, each on lines no launch has touched (the L2
    rows: its second launch on them)."""
    import cupy as cp
    from simt_sim.calibrate.probes.base import gpu_name, ptx_of
    f = cp.RawModule(path=str(ptx_of(KERNELS))).get_function("k_ldg_pair")
    x = cp.empty(SPAN * (len(SETS) * RUNS + 2), cp.float32)          # never written: not in L2
    times = cp.zeros(3 * WARPS, cp.uint32)

    def launch(case, at: int) -> list[float]:
        f((1,), (WARPS * 32,), (x, times, np.uint32(case[1]), np.uint64(at), np.uint64(GAP)))
        cp.cuda.runtime.deviceSynchronize()
        return figures({"times": times.get()}, "k_ldg_pair", case)
    out, base = {}, 0
    for label, case in SETS.items():
        runs = []
        for _ in range(RUNS):
            base += SPAN
            first = launch(case, base)
            runs.append(first if case[0] == "DRAM" else launch(case, base))
        out[label] = np.median(np.array(runs), axis=0).round(1).tolist()
    return {"probe": "ldg_pair", "device": gpu_name(), "gap_floats": GAP, "active": ACTIVE, "figures": out}
