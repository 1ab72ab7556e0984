"""How many lines that the model's hashed L1 puts into one set does the GPU's L1 keep?
tools/kernels/l1_sets.cu (probe l1_sets' kernel): one thread chases a chain of `count` lines twice
(LDG.E.CONSTANT, cached in L1) and times the second pass.  The lines of family b are (h << b) | h
for h = 0, 1, ... (lines of the buffer, which the simulator places at a multiple of 2^18 lines):
the model's set index with hash_sets (line ^ line >> b ^ line >> 2b, mod 2^b sets) is 0 for all of
them when its L1 has 2^b sets, so its `ways` of them stay and a longer chain misses on every line
(LRU); family 9 meets in one set of 256 KiB at 4 ways (512 sets), 8 at 8 ways, 7 at 16 ways.  The
figure: cycles per load of the second pass (about 38 when the lines stayed, some 300 when they came
from L2), the median of 5 launches."""
from __future__ import annotations

import numpy as np

from simt_sim.calibrate.probes import l1_sets

FAMILIES = (9, 8, 7)
COUNTS = (4, 6, 8, 10, 12, 16, 20, 24, 32)
WORDS_PER_LINE = 32
MEANING = "cycles per L1-hit load of 4-32 lines a hashed 4-, 8- or 16-way L1 would put into one set"
KERNELS = "l1_sets"
FUNCTIONS = l1_sets.FUNCTIONS
SETS = {f"{b}/{c}": (b, c) for b in FAMILIES for c in COUNTS}
FIGURES, FIGURE_NAMES = "cycles_per_load", ("cycles per load of the second pass (family / lines)",)
RECORDING = "h200/l1_ways.json"
KEYS = ("memory.l1.ways",)
FIT = {"memory.l1.ways": (8, 16, 32)}
FIT_ROWS = ("l1_chase / 7/32", "l1_chase / 8/32")
CHECKS = {"l1_chase / 9/32": 0.1}
row_key, launch_of, figures = l1_sets.row_key, l1_sets.launch_of, l1_sets.figures


def chain(family: int, count: int) -> np.ndarray:
    """Words whose first word of each line of the family holds the index of the next line's (the
    last back to the first)."""
    at = ((np.arange(count, dtype=np.int64) << family) | np.arange(count, dtype=np.int64)) * WORDS_PER_LINE
    words = np.zeros(int(at[-1]) + WORDS_PER_LINE, np.uint32)
    words[at] = np.roll(at, -1)
    return words


def BUFFERS(name: str, case) -> dict:
    return {"chain": chain(*case), "clk": ("int64", 2)}


def measure() -> dict:
    import cupy as cp
    from simt_sim.calibrate.probes.base import gpu_name, ptx_of
    f = cp.RawModule(path=str(ptx_of(KERNELS))).get_function("l1_chase")
    out = {label: l1_sets.gpu_cycles_per_load(cp, f, chain(*case), case[1]) for label, case in SETS.items()}
    return {"probe": "l1_ways", "device": gpu_name(), "clock": "SM cycles at the plain launch's clock",
            "cycles_per_load": out}
