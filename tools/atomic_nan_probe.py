"""Measure float atomic add on the GPU with NaN, infinity, zero and subnormal operands
(tests/cuda/atomic_f64_nan.cu): what the memory word becomes and what the atomic returns, for
every pair of a fixed list of special values, in global memory (ptxas: ATOMG.E.ADD.F64.RN /
.F32.FTZ.RN) and shared memory (ATOMS.CAST.SPIN loops around DADD / FADD); and whether several
NaNs added to one word by one warp instruction leave the same word on every run.

  python tools/atomic_nan_probe.py [--out atomic_nan_h100.json]     (needs a GPU and cupy)

The simulator's rule (docs/corpus.md, execute.atomic_apply) and tests/test_corpus_atomics.py
come from this probe's H100 output."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

PTX = Path(__file__).resolve().parents[1] / "tests" / "cuda" / "atomic_f64_nan.ptx"

VALS64 = [0x0, 0x8000000000000000, 0x3FF0000000000000, 0xBFF0000000000000, 0x7FF0000000000000,
          0xFFF0000000000000, 0x7FF8000000000000, 0xFFF8000000000000, 0x7FFC5326E1BCD975,
          0xFFFFFFF503FF8000, 0x7FF45326E1BCD975, 0xFFF7FF9CFFFFFFEF, 0x7FF00000FFFFFFFB,
          0x00000000FFFFFFFF, 0x800000007FF00000, 0x0010000000000000, 0x7FEFFFFFFFFFFFFF,
          0x3FF8000000000000]
VALS32 = [0x0, 0x80000000, 0x3F800000, 0xBF800000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000,
          0x7FD12345, 0xFF912345, 0x7F812345, 0xFF800001, 0x7F800001, 0x00000001, 0x807FFFFF,
          0x00800000, 0x7F7FFFFF, 0x3FC00000]
# the order probe: 2 warps, each lane adds its own NaN (quiet and signalling, both signs) to its warp's word
ORDER = [((0x7FF8000000000000 if lane % 2 == 0 else 0x7FF0000000000000) | (0x8000000000000000 if lane % 3 == 0 else 0)
          | (lane + 1) << 8 | w) for w in range(2) for lane in range(32)]


def inputs():
    n = len(VALS64)
    bufs = {"vals": np.array(VALS64, np.uint64), "vals32": np.array(VALS32, np.uint32)}
    for k in ("red_mem", "atom_mem", "atom_ret", "sh_mem", "sh_ret"):
        bufs[k] = np.zeros(n * n, np.uint64)
    for k in ("red32", "atom32", "ret32", "sh32", "shret32"):
        bufs[k] = np.zeros(n * n, np.uint32)
    return n, bufs


ARGS = ["vals", "vals32", "n", "red_mem", "atom_mem", "atom_ret", "sh_mem", "sh_ret", "red32", "atom32", "ret32",
        "sh32", "shret32"]
BLOCK = 256


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="atomic_nan_h100.json")
    ap.add_argument("--repeats", type=int, default=20)
    a = ap.parse_args()
    import cupy as cp
    mod = cp.RawModule(path=str(PTX))
    n, bufs = inputs()
    dev = {k: cp.asarray(v) for k, v in bufs.items()}
    grid = (n * n + BLOCK - 1) // BLOCK
    mod.get_function("atomic_f64_nan")((grid,), (BLOCK,), tuple(np.int32(n) if k == "n" else dev[k] for k in ARGS))
    cp.cuda.Device().synchronize()
    res = {k: [int(x) for x in cp.asnumpy(dev[k])] for k in ARGS if k not in ("vals", "vals32", "n")}
    order = mod.get_function("atomic_f64_order")
    finals = []
    for _ in range(a.repeats):
        mem = cp.zeros(2, cp.uint64)
        ret = cp.zeros(64, cp.uint64)
        order((1,), (64,), (cp.asarray(np.array(ORDER, np.uint64)), mem, ret))
        cp.cuda.Device().synchronize()
        finals.append(([int(x) for x in cp.asnumpy(mem)], [int(x) for x in cp.asnumpy(ret)]))
    res["order_runs"] = finals
    res["device"] = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    Path(a.out).write_text(json.dumps(res))
    print(f"{res['device']}: wrote {a.out}; order probe: {len(set(json.dumps(f) for f in finals))} distinct outcome(s) "
          f"in {a.repeats} runs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
