#!/usr/bin/env python
"""How many memory instructions a sub-partition accepts before its warps wait: on the GPU (--gpu)
and in the simulator (default).  Warps of one 16-warp block issue a burst of 32 independent memory
instructions of one kind, each followed by a clock read (tools/kernels/mio_queue.cu, its PTX and the
committed cubin beside it).  The clock steps show when each instruction was accepted: a warp goes on
at its issue rate while the queue in front of the LSU has room, then at the rate the queue drains.
Bursting warps: one; four on four sub-partitions; two and four on one sub-partition (warps 0, 4,
8, 12 share sub-partition 0).

    python tools/mio_queue.py --gpu --out programs/probes/t-mio-w1/reference/h100-mio-queue.json
    python tools/mio_queue.py            # the simulator's clock steps beside the recorded ones
    python tools/mio_queue.py --fit      # the sass values these steps pin (queue depth, shared rates)
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import gpu_medians, model_probe_parser, simulate_block, write_result  # noqa: E402  (tools/, beside this file)
PTX = ROOT / "tools" / "kernels" / "mio_queue.ptx"
RECORDED = ROOT / "programs" / "probes" / "t-mio-w1" / "reference" / "h100-mio-queue.json"
BURST = 32
BLOCK = 16 * 32
KERNELS = {"k_lds32": "LDS.32", "k_lds128": "LDS.128 (16 of them)", "k_sts32": "STS.32", "k_ldg32": "LDG.32, L1 hits"}
ACTIVE = {"1 warp": 0x1, "4 warps, 4 sub-partitions": 0xF, "2 warps, 1 sub-partition": 0x11,
          "4 warps, 1 sub-partition": 0x1111}


def bursting_warps(active: int) -> list[int]:
    return [w for w in range(16) if (active >> w) & 1]


def steps(times: np.ndarray, active: int) -> list[list[int]]:
    """Each bursting warp's clock readings (BURST + 2 of them), from the earliest first reading."""
    t = times.reshape(16, BURST + 2).astype(np.int64)[bursting_warps(active)]
    t = (t - t[:, 0].min()) % (1 << 32)            # 32-bit clock words
    return t.tolist()


def burst(cp, f, name: str, active: int) -> list[list[int]]:
    """One launch of a burst kernel on the GPU: the bursting warps' clock steps."""
    times, res = cp.zeros(16 * (BURST + 2), cp.uint32), cp.zeros(2 * BLOCK, cp.uint32)
    args = (times, res, np.uint32(active)) + ((cp.arange(BURST * 32, dtype=cp.uint32),) if name == "k_ldg32" else ())
    f((1,), (BLOCK,), args)
    cp.cuda.runtime.deviceSynchronize()
    return steps(times.get(), active)


def simulated_steps(name: str, active: int, overrides: tuple[str, ...] = ()) -> list[list[int]]:
    bufs = {"times": np.zeros(16 * (BURST + 2), np.uint32), "out": np.zeros(2 * BLOCK, np.uint32),
            "data": np.arange(BURST * 32, dtype=np.uint32)}
    args = ["times", "out", active] + (["data"] if name == "k_ldg32" else [])
    return steps(simulate_block(PTX, name, BLOCK, args, bufs, overrides).outputs["times"], active)


def fewest_queue(recorded: dict, most: int = 64) -> int:
    """The fewest waiting instructions with which the model's clock steps of one warp's 16 LDS.128
    equal the H100's (the steps only grow with the depth, so the first that matches is the answer)."""
    hw = recorded["k_lds128 / 1 warp"][0][: BURST // 2 + 1]
    for depth in range(most + 1):
        if simulated_steps("k_lds128", 1, (f"sass.memory_queue={depth}",))[0][: BURST // 2 + 1] == hw:
            return depth
    raise SystemExit(f"no depth up to {most} gives the recorded steps")


RATES = (16, 32, 64, 128)          # bytes per cycle tried for the shared-memory rates


def fitted_rates(recorded: dict) -> dict[str, int]:
    """The rates (of RATES) whose model comes closest to the H100: a sub-partition's, from the clock
    after the 32nd LDS.32 of 4 warps on one sub-partition; a warp's own, from one warp's 16 LDS.128
    until their sum (each with the other rate as configured)."""
    def miss(key, rate, name, active, pick):
        hw = recorded[f"{name} / {next(k for k, v in ACTIVE.items() if v == active)}"][0][pick]
        return abs(simulated_steps(name, active, (f"sass.units.ldst.{key}={rate}",))[0][pick] - hw)
    return {"shared_bytes_per_cycle": min(RATES, key=lambda r: miss("shared_bytes_per_cycle", r, "k_lds32",
                                                                    ACTIVE["4 warps, 1 sub-partition"], BURST)),
            "warp_shared_bytes_per_cycle": min(RATES, key=lambda r: miss("warp_shared_bytes_per_cycle", r,
                                                                         "k_lds128", ACTIVE["1 warp"], BURST + 1))}


def summary(warps: list[list[float]]) -> str:
    """First warp's accept times of instructions 1, 2, 4, 8, 16, 32 and the sum's; the last warp's end."""
    first = warps[0]
    picks = [first[i] for i in (1, 2, 4, 8, 16, BURST, BURST + 1)]
    return " ".join(f"{v:6.0f}" for v in picks) + f" | {warps[-1][-1]:6.0f}"


def main() -> int:
    ap = model_probe_parser(__doc__)
    ap.add_argument("--fit", action="store_true", help="print the fewest sass.memory_queue that matches")
    args = ap.parse_args()
    if args.fit:
        rec = json.loads(RECORDED.read_text())["steps"]
        print(f"sass.memory_queue: {fewest_queue(rec)}")
        for key, rate in fitted_rates(rec).items():
            print(f"sass.units.ldst.{key}: {rate}")
        return 0
    if args.gpu:
        write_result({"tool": os.path.basename(__file__), "burst": BURST, "kernels": KERNELS,
                      "active": ACTIVE, "steps": gpu_medians(PTX, KERNELS, ACTIVE, burst, 1)}, args.out)
        return 0
    rec = json.loads(RECORDED.read_text())["steps"]
    print(f"{'kernel / bursting warps':<42} {'':>5} clock after instruction 1, 2, 4, 8, 16, 32, sum | last warp's sum")
    for name in KERNELS:
        for label, active in ACTIVE.items():
            key = f"{name} / {label}"
            print(f"{key:<42} {'H100':>5} {summary(rec[key])}")
            print(f"{'':<42} {'model':>5} {summary(simulated_steps(name, active, tuple(args.set)))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
