"""How many memory instructions a sub-partition accepts before its warps wait.  Warps of one
16-warp block issue a burst of 32 independent memory instructions of one kind, each followed by a
clock read (tools/kernels/mio_queue.cu): LDS.32, LDS.128 (16 of them), STS.32, LDG.32 hitting L1.
The clock steps show when each instruction was accepted: a warp goes on at its issue rate while the
queue in front of the LSU has room, then at the rate the queue drains.  Bursting warps: one; four
on four sub-partitions; two and four on one sub-partition (warps 0, 4, 8, 12 share sub-partition 0).
A row's figures: each bursting warp's 34 clock readings (before, after each of the 32, after their
sum) from the earliest first reading, warp after warp; the replay shows the first warp's clock
after instructions 1, 2, 4, 8, 16, 32 and the sum, and the last warp's sum.

Recorded on the H100: one warp's 16 LDS.128 issue 4-8 cycles apart while the pipe serves one per
16; 10 waiting (sass.memory_queue) is the fewest that gives its clock steps to the cycle (--fit: the
first 17 readings, depths 0 to 10).  4 warps' LDS.32 on one sub-partition pin its shared rate
(shared_bytes_per_cycle, --fit: the first warp's clock after the 32nd).  The one warp's LDS.128 sum
comes closest at warp_shared_bytes_per_cycle 64 (the H100's 304 cycles; 426 at 32), but
h100.yaml keeps 32, which tools/shared_ops.py's lone warp's STS.64 pins: no --fit for it
(tests/test_microbench.py checks both)."""
from __future__ import annotations

import numpy as np

BURST, WARPS = 32, 16
READINGS = BURST + 2                    # a clock read before the burst, after each instruction, after the sum
MEANING = "clock steps of a burst of 32 LDS/STS/LDG of 1-4 warps: the memory-instruction queue, the shared rates"
KERNELS = "mio_queue"
FUNCTIONS = {"k_lds32": "LDS.32", "k_lds128": "LDS.128 (16 of them)", "k_sts32": "STS.32",
             "k_ldg32": "LDG.32, L1 hits"}
SETS = {"1 warp": 0x1, "4 warps, 4 sub-partitions": 0xF, "2 warps, 1 sub-partition": 0x11,
        "4 warps, 1 sub-partition": 0x1111}
FIGURES = "steps"
FIGURE_NAMES = ("first warp's clock after instruction 1", "2", "4", "8", "16", "32", "the sum", "last warp's sum")
RECORDING = "h100/mio_queue.json"
HEADER = {"burst": BURST, "kernels": FUNCTIONS, "active": SETS}
DECIMALS = 1
KEYS = ("sass.memory_queue", "sass.units.ldst.shared_bytes_per_cycle", "sass.units.ldst.warp_shared_bytes_per_cycle")
# shared_bytes_per_cycle: 128 runs this row as 64 does (the SM's shared port, a pass per cycle, holds 4 warps of one
# sub-partition either way: the same |model - recorded|, 2 cycles), so the candidates end at the smallest that reaches
# the H100 (the tool picked the first of 16, 32, 64, 128 that came closest: 64)
FIT = {"sass.memory_queue": tuple(range(11)), "sass.units.ldst.shared_bytes_per_cycle": (16, 32, 64)}
QUEUE_ROW, SHARED_ROW = "k_lds128 / 1 warp", "k_lds32 / 4 warps, 1 sub-partition"
FIT_ROWS = {"sass.memory_queue": (QUEUE_ROW,), "sass.units.ldst.shared_bytes_per_cycle": (SHARED_ROW,)}
BUFFERS = {"times": ("uint32", WARPS * READINGS), "out": ("uint32", 2 * WARPS * 32),
           "data": np.arange(BURST * 32, dtype=np.uint32)}


def launch_of(name: str, active: int):
    return WARPS * 32, ["times", "out", np.uint32(active)] + (["data"] if name == "k_ldg32" else [])


def bursting_warps(active: int) -> list[int]:
    return [w for w in range(WARPS) if (active >> w) & 1]


def steps(times, active: int) -> np.ndarray:
    """[bursting warp, reading]: each bursting warp's clock readings from the earliest first one
    (32-bit clock words)."""
    t = np.asarray(times).reshape(WARPS, READINGS).astype(np.int64)[bursting_warps(active)]
    return (t - t[:, 0].min()) % (1 << 32)


def figures(out, name: str, active: int) -> list[float]:
    return [float(v) for v in steps(out["times"], active).ravel()]


def recorded_rows(figures: dict) -> dict:
    """The recording keeps each row's readings warp by warp ([[34 readings], ...]): one list."""
    return {row: [float(v) for warp in warps for v in warp] for row, warps in figures.items()}


def shown(figures: list[float]) -> list[float]:
    """The replay's columns: the first warp's clock after instructions 1, 2, 4, 8, 16, 32 and the
    sum; the last warp's after the sum."""
    return [figures[i] for i in (1, 2, 4, 8, 16, BURST, BURST + 1)] + [figures[-1]]


def fit_error(key: str, rows) -> float:
    """|model - recorded| of the figures that decide `key` (rows: replay's (row, recorded, model)):
    sass.memory_queue, the first 17 readings of one warp's LDS.128 (the depth that issues all 16
    as on the H100: the steps only grow with the depth, --fit's candidates end at 10); a
    sub-partition's shared rate, the first warp's clock after 4 warps' 32nd LDS.32 on it."""
    (_, rec, model), = rows
    picks = range(BURST // 2 + 1) if key == "sass.memory_queue" else (BURST,)
    return float(sum(abs(model[i] - rec[i]) for i in picks))


def measure() -> dict:
    """On the GPU: each row's medians over eight launches, warp by warp as the recording keeps them."""
    from simt_sim.calibrate.probes import get
    from simt_sim.calibrate.probes.base import gpu_medians, gpu_name, ptx_of
    flat = gpu_medians(ptx_of(KERNELS), FUNCTIONS, SETS, get("mio_queue").gpu_launch, DECIMALS)
    return {"probe": "mio_queue", "device": gpu_name(), **HEADER,
            FIGURES: {row: np.reshape(v, (-1, READINGS)).tolist() for row, v in flat.items()}}
