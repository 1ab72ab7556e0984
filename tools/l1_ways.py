#!/usr/bin/env python
"""How many lines that the model's hashed L1 puts into one set does the GPU's L1 keep, on the GPU
(--gpu) and in the simulator (default)?  tools/kernels/l1_sets.cu (tools/l1_sets.py's kernel):
one thread chases a chain of `count` lines twice (LDG.E.CONSTANT, cached in L1) and times the
second pass.  The lines of family b are (h << b) | h for h = 0, 1, ... (lines of the buffer,
which the simulator places at a multiple of 2^18 lines): the model's set index
with hash_sets (line ^ line >> b ^ line >> 2b, mod 2^b sets) is 0 for all of them when its L1 has
2^b sets, so its `ways` of them stay and a longer chain misses on every line (LRU); family 9 meets
in one set of 256 KiB at 4 ways (512 sets), 8 at 8 ways, 7 at 16 ways.  Figures: cycles per load
of the second pass (about 38 when the lines stayed, some 300 when they came from L2), the median
of 5 launches.

    python tools/l1_ways.py --gpu --out programs/t-ldg-path/reference/h200-l1-ways.json
    python tools/l1_ways.py           # the simulator beside the recorded figures
    python tools/l1_ways.py --set memory.l1.ways=4
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import l1_sets as LS  # noqa: E402
from probe_output import gpu_name, model_probe_parser, recorded, write_result  # noqa: E402
PTX = LS.PTX
RECORDED = ROOT / "programs" / "t-ldg-path" / "reference" / "h200-l1-ways.json"
FAMILIES = (9, 8, 7)
COUNTS = (4, 6, 8, 10, 12, 16, 20, 24, 32)
WORDS_PER_LINE = 32


def lines(family: int, count: int) -> np.ndarray:
    h = np.arange(count, dtype=np.int64)
    return (h << family) | h


def chain(family: int, count: int) -> np.ndarray:
    """Words whose first word of each line of the family holds the index of the next line's (the
    last back to the first)."""
    at = lines(family, count) * WORDS_PER_LINE
    words = np.zeros(int(at[-1]) + WORDS_PER_LINE, np.uint32)
    words[at] = np.roll(at, -1)
    return words


def key(family: int, count: int) -> str:
    return f"{family}/{count}"


def measure() -> dict:
    import cupy as cp
    f = cp.RawModule(path=str(PTX)).get_function("l1_chase")
    out = {}
    for family in FAMILIES:
        for count in COUNTS:
            out[key(family, count)] = LS.gpu_cycles_per_load(cp, f, chain(family, count), count)
            print(family, count, out[key(family, count)], flush=True)
    return {"tool": os.path.basename(__file__), "device": gpu_name(), "clock": "SM cycles at the plain launch's clock",
            "cycles_per_load": out}


def simulated(family: int, count: int, overrides=()) -> float:
    return LS.simulated_chain(chain(family, count), count, overrides)


def main() -> int:
    args = model_probe_parser(__doc__).parse_args()
    if args.gpu:
        write_result(measure(), args.out)
        return 0
    rec = recorded(RECORDED, "cycles_per_load")
    print(f"{'family':>6} {'lines':>6}  cycles per load: GPU  model")
    for family in FAMILIES:
        for count in COUNTS:
            print(f"{family:>6} {count:>6}  {rec.get(key(family, count), float('nan')):20.1f} "
                  f"{simulated(family, count, tuple(args.set)):6.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
