#!/usr/bin/env python
"""Whether a warp waiting on a long-latency result gets its turn back as soon as the result is
there, beside warps that can always issue: on the GPU (--gpu) and in the simulator (default).  On
sub-partition 0 one warp (slot 0, 1 or 3) runs dependent LDS, L1-hit LDG or FFMA chains while 0 to
3 other warps run independent FFMAs (tools/kernels/sched_beside.cu, its PTX and the committed
cubin beside it).  tools/hmma_beside.py found a dependent LDS chain 3 times slower on the H100
than in the model beside three FFMA warps.  Printed: the chain warp's cycles per load (per FFMA),
and the FFMA warps' cycles per FFMA of the sub-partition.

    python tools/sched_beside.py --gpu --out programs/t-mio-w1/reference/h100-sched-beside.json
    python tools/sched_beside.py           # the simulator beside the recorded figures
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import gpu_medians, gpu_name, model_probe_parser, recorded, simulate_block, write_result  # noqa: E402  (tools/, beside this file)
PTX = ROOT / "tools" / "kernels" / "sched_beside.ptx"
RECORDED = ROOT / "programs" / "t-mio-w1" / "reference" / "h100-sched-beside.json"
STEPS, FFMA_ITERS, THREADS = 64, 640, 512
CHAINS = {"lds": ("dependent LDS", 4), "ldg": ("dependent LDG, L1 hits", 4), "ffma": ("dependent FFMA", 8)}
SETS = {"f0_s0": (0, 0), "f1_s0": (1, 0), "f2_s0": (2, 0), "f3_s0": (3, 0), "f1_s3": (1, 3), "f3_s3": (3, 3),
        "f3_s1": (3, 1)}
KERNELS = {f"k_{c}_{s}": f"{c} / {s}" for c in CHAINS for s in SETS}
ACTIVE = {"block": 0}
C, D = np.float32(0.5), np.float32(1.0)


def figures(name: str, times: np.ndarray) -> list[float]:
    """[the chain warp's cycles per load (FFMA), the FFMA warps' cycles per FFMA of the sub-partition]."""
    chain, key = name[2:].split("_", 1)
    n_ffma, slot = SETS[key]
    t = times.astype(np.int64).reshape(-1, 2)
    w = 4 * slot
    per_op = float((t[w, 1] - t[w, 0]) % (1 << 32)) / (STEPS * CHAINS[chain][1])
    if n_ffma == 0:
        return [round(per_op, 2), float("nan")]
    others = [4 * ((slot + r) % 4) for r in range(1, n_ffma + 1)]
    span = float(t[others, 1].max() - t[others, 0].min()) / (n_ffma * FFMA_ITERS * 8)
    return [round(per_op, 2), round(span, 3)]


def buffers() -> dict[str, np.ndarray]:
    return {"times": np.zeros(32, np.uint32), "g": np.zeros(4096, np.uint32), "out": np.zeros(THREADS, np.float32)}


def launch(cp, f, name: str, active: int) -> list[float]:
    bufs = {k: cp.asarray(v) for k, v in buffers().items()}
    f((1,), (THREADS,), (bufs["times"], bufs["g"], bufs["out"], C, D))
    cp.cuda.runtime.deviceSynchronize()
    return figures(name, bufs["times"].get())


def simulated(name: str, overrides: tuple[str, ...] = ()) -> list[float]:
    res = simulate_block(PTX, name, THREADS, ["times", "g", "out", C, D], buffers(), overrides)
    return figures(name, res.outputs["times"])


def main() -> int:
    args = model_probe_parser(__doc__).parse_args()
    if args.gpu:
        write_result({"tool": os.path.basename(__file__), "device": gpu_name(), "steps": STEPS, "kernels": KERNELS,
                      "figures": gpu_medians(PTX, KERNELS, ACTIVE, launch, 3)}, args.out)
        return 0
    rec = recorded(RECORDED, "figures")
    print(f"{'chain (its slot)':<34}{'FFMA warps':<11} chain cycles per op H100 | model;  FFMA warps' cycles per FFMA H100 | model")
    for name in KERNELS:
        chain, key = name[2:].split("_", 1)
        n_ffma, slot = SETS[key]
        hw = rec.get(f"{name} / block", [float("nan")] * 2)
        model = simulated(name, tuple(args.set))
        print(f"{CHAINS[chain][0] + f' (slot {slot})':<34}{n_ffma:<11} {hw[0]:7.1f} | {model[0]:7.1f}      {hw[1]:7.3f} | {model[1]:7.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
