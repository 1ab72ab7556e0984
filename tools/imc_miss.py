#!/usr/bin/env python
"""What a constant operand's first read costs, on the GPU (--gpu) and in the simulator (default).
tools/kernels/imc_miss.cu (its PTX and the committed cubin beside it): a warp reads the clock,
stores a value formed in the window from a kernel parameter, and reads the clock again.  The
parameter is read through the immediate-constant cache (ULDC c[0x0][0x400]: k_imc_*) or at a register
index (LDC c[0x0][R+0x210]: k_ldc_*), cold (no read of its line before) or warm (a word 8 ... 256
bytes away read before the window), and in k_ldc_then_imc / k_imc_then_ldc one path warms the
other; k_imc_dims reads the block's dimensions (c[0x0][0x0]), k_imc_two / k_imc_three two or three
cold lines.  k_imc_other / k_imc_alone: a second warp (another sub-partition) reads 0x404 3,000
cycles after the first read 0x400 (or nothing); k_imc_same_sp: warp 4, of warp 0's sub-partition.
k_imc_blocks: 528 one-warp blocks run one after the other on each SM (tools/ldc_blocks.py's
arrangement): which blocks pay.  Figures: the window, the first of 9 launches and the median of the
other 8 (1024 threads: the mean over the 32 warps, and each warp's arrival and wait by arrival).

    python tools/imc_miss.py --gpu --out programs/probes/t-diverge-w8/reference/h100-imc-miss.json
    python tools/imc_miss.py            # the simulator beside the recorded figures
    python tools/imc_miss.py --fit      # the sass.constants miss times that fit the recording
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from ldc_blocks import BLOCKS, SHARED  # noqa: E402  (tools/, beside this file)
from probe_output import gpu_name, model_probe_parser, recorded, write_result  # noqa: E402
PTX = ROOT / "tools" / "kernels" / "imc_miss.ptx"
RECORDED = ROOT / "programs" / "probes" / "t-diverge-w8" / "reference" / "h100-imc-miss.json"
PAD_WORDS = 256
RANKS = 8
# case -> (threads, what its window reads); the two-warp kernels time warp 1 or 4, the others all
WINDOWS = {
    "k_imc_none": (32, "no constant"),
    "k_imc_cold": (32, "ULDC 0x400, its line not read before"),
    "k_imc_cold/32 warps": (1024, "the same, 32 warps at once"),
    "k_imc_dims": (32, "ULDC 0x0 (blockDim.x), cold"),
    "k_imc_two": (32, "ULDC 0x400 and 0x440, both cold"),
    "k_imc_three": (32, "ULDC 0x400, 0x440 and 0x480, all cold"),
    "k_imc_warm8": (32, "ULDC 0x408 after one of 0x400"),
    "k_imc_warm32": (32, "ULDC 0x420 after one of 0x400"),
    "k_imc_warm64": (32, "ULDC 0x440 after one of 0x400"),
    "k_imc_warm128": (32, "ULDC 0x480 after one of 0x400"),
    "k_imc_warm256": (32, "ULDC 0x500 after one of 0x400"),
    "k_ldc_cold": (32, "LDC c[0x0][R+0x210] of 0x404, cold"),
    "k_ldc_warm": (32, "the same after an LDC of 0x400"),
    "k_ldc_warm64": (32, "an LDC of 0x440 after one of 0x400"),
    "k_ldc_warm128": (32, "an LDC of 0x480 after one of 0x400"),
    "k_ldc_warm512": (32, "an LDC of 0x600 after one of 0x400"),
    "k_ldc_then_imc": (32, "ULDC 0x404 after an LDC of 0x400"),
    "k_imc_then_ldc": (32, "LDC of 0x404 after a ULDC of 0x400"),
    "k_imc_other": (64, "warp 1: ULDC 0x404, warp 0 read 0x400 before"),
    "k_imc_same_sp": (160, "warp 4: the same, warp 0 of its sub-partition read 0x400"),
    "k_imc_alone": (64, "warp 1: ULDC 0x404, warp 0 read nothing"),
}
BLOCK_KERNELS = ("k_imc_blocks_none", "k_imc_blocks")


def kernel_of(case: str) -> str:
    return case.split("/")[0]


TIMED_WARP = {"k_imc_other": 1, "k_imc_same_sp": 4, "k_imc_alone": 1}


def window(clk: np.ndarray, threads: int, case: str) -> float:
    """The case's window: of the timed warp in the two-warp kernels, else the mean over the warps."""
    c = clk.reshape(-1, 2).astype(np.int64)[: threads // 32]
    spans = c[:, 1] - c[:, 0]
    w = TIMED_WARP.get(case)
    return float(spans[w]) if w is not None else float(spans.mean())


def by_rank(clk: np.ndarray) -> dict:
    """Of blocks run one after the other on their SM: the mean window by rank on the SM, and of the
    blocks first and not first on their sub-partition (%warpid % 4)."""
    c = clk.reshape(BLOCKS, 4).astype(np.int64)
    ranks: list[list[int]] = [[] for _ in range(RANKS)]
    first_on_sp, later_on_sp = [], []
    for sm in np.unique(c[:, 2]):
        mine = c[c[:, 2] == sm]
        seen = set()
        for rank, (t0, t1, _, slot) in enumerate(mine[np.argsort(mine[:, 0])]):
            if rank < RANKS:
                ranks[rank].append(int(t1 - t0))
            (later_on_sp if slot % 4 in seen else first_on_sp).append(int(t1 - t0))
            seen.add(slot % 4)
    mean = lambda v: round(float(np.mean(v)), 1) if v else float("nan")  # noqa: E731
    return {"by rank": [mean(w) for w in ranks], "first on its sub-partition": mean(first_on_sp),
            "later on its sub-partition": mean(later_on_sp), "blocks later on theirs": len(later_on_sp)}


def warp_starts(clk: np.ndarray) -> list[list[float]]:
    """The 32 warps of a block, in the order they reached the window: [start - the first's start,
    window] each (how staggered the H100 starts a block's warps, and what each waits)."""
    c = clk.reshape(-1, 2).astype(np.int64)[:32]
    c = c[np.argsort(c[:, 0], kind="stable")]
    return [[float(t0 - c[0, 0]), float(t1 - t0)] for t0, t1 in c]


def median_of(runs: list[dict]) -> dict:
    """Field by field, the median of by_rank's figures over launches."""
    return {k: (np.median([r[k] for r in runs], axis=0).round(1).tolist()) for k in runs[0]}


def pad_argument():
    """The kernel's Pad (unsigned v[256]) as a numpy structured scalar, cupy's form of a struct."""
    return np.zeros(1, np.dtype([("v", np.uint32, PAD_WORDS)]))[0]


def measure() -> dict:
    import cupy as cp
    mod = cp.RawModule(path=str(PTX))
    windows, ranks, per_warp = {}, {}, {}
    for case, (threads, _) in WINDOWS.items():
        f = mod.get_function(kernel_of(case))
        runs = []
        for _ in range(9):
            res, clk = cp.zeros(4096, cp.uint32), cp.zeros(2 * 32, cp.int64)
            f((1,), (threads,), (res, clk, pad_argument()))
            cp.cuda.runtime.deviceSynchronize()
            got = clk.get()
            runs.append(window(got, threads, case))
            if threads == 1024:
                per_warp.setdefault(case, []).append(warp_starts(got))
        windows[case] = {"first launch": runs[0], "later launches (median)": float(np.median(runs[1:]))}
    for name in BLOCK_KERNELS:
        f = mod.get_function(name)
        f.max_dynamic_shared_size_bytes = SHARED
        runs = []
        for _ in range(9):
            res, clk = cp.zeros(BLOCKS * 32, cp.uint32), cp.zeros(4 * BLOCKS, cp.int64)
            f((BLOCKS,), (32,), (res, clk, pad_argument()), shared_mem=SHARED)
            cp.cuda.runtime.deviceSynchronize()
            runs.append(by_rank(clk.get()))
        ranks[name] = {"first launch": runs[0], "later launches (median)": median_of(runs[1:])}
    return {"tool": os.path.basename(__file__), "device": gpu_name(),
            "cases": {c: w for c, (_, w) in WINDOWS.items()}, "window": windows, "window_by_rank_on_sm": ranks,
            "warps_by_start": {c: {"first launch": runs[0], "later launches (median)":
                                   np.median(runs[1:], axis=0).round(1).tolist()} for c, runs in per_warp.items()}}


def simulated_run(case: str, overrides: tuple[str, ...], launches: int):
    """The case's kernel `launches` times in the model on one SM: simt_sim's Result."""
    import simt_sim
    prog = simt_sim.load_program(str(PTX), kernel_of(case), isa="sass")
    cfg = simt_sim.load_config("h100", ["num_sms=1", *overrides])
    bufs = {"res": np.zeros(4096, np.uint32), "clk": np.zeros(2 * 32, np.int64)}
    return simt_sim.simulate([simt_sim.Launch(prog, 1, WINDOWS[case][0], ["res", "clk", 0])] * launches, bufs, cfg)


def simulated(case: str, overrides: tuple[str, ...], launches: int) -> float:
    """The case's window in the model's last of `launches` launches on one SM."""
    return window(simulated_run(case, overrides, launches).outputs["clk"], WINDOWS[case][0], case)


def simulated_ranks(name: str, overrides: tuple[str, ...]) -> list[float]:
    """A blocks kernel in the model: RANKS blocks one after the other on one SM, their windows."""
    import simt_sim
    prog = simt_sim.load_program(str(PTX), name, isa="sass")
    cfg = simt_sim.load_config("h100", ["num_sms=1", *overrides])
    bufs = {"res": np.zeros(RANKS * 32, np.uint32), "clk": np.zeros(4 * RANKS, np.int64)}
    out = simt_sim.simulate([simt_sim.Launch(prog, RANKS, 32, ["res", "clk", 0], dynamic_shared=SHARED)], bufs, cfg)
    c = out.outputs["clk"].reshape(RANKS, 4)
    return [float(r[1] - r[0]) for r in c[np.argsort(c[:, 0])]]


# the cases that pin each miss: a warp that meets one cold line (or two, three) of the path, with
# everything else of its window as in a warm case (not k_imc_cold / k_ldc_cold, whose windows hold
# the model's fetch of their second code line: 13-15 cycles the H100's do not show)
FIT_CASES = {"imc_miss_ns": ("k_imc_warm64", "k_imc_warm128", "k_imc_warm256", "k_imc_other", "k_imc_alone",
                             "k_ldc_then_imc", "k_imc_two", "k_imc_three"),
             "ldc_miss_ns": ("k_ldc_warm64", "k_ldc_warm128", "k_ldc_warm512", "k_imc_then_ldc")}
FIT_NS = [x / 10 for x in range(150, 451, 5)]     # 15.0 .. 45.0 ns


def fit_miss(key: str, ns: float) -> float:
    """How far the model's windows over FIT_CASES[key] lie from the H100's with sass.constants.KEY
    at `ns` (the sum of absolute differences; the other key as configured)."""
    rec = recorded(RECORDED, "window")
    return sum(abs(simulated(c, (f"sass.constants.{key}={ns}",), 1) - rec[c]["later launches (median)"])
               for c in FIT_CASES[key])


def fitted_ns() -> dict[str, float]:
    """Per sass.constants miss key, the nanoseconds of FIT_NS whose model comes closest to the
    H100's windows (fit_miss)."""
    return {key: min(FIT_NS, key=lambda ns, key=key: fit_miss(key, ns)) for key in FIT_CASES}


def main() -> int:
    ap = model_probe_parser(__doc__)
    ap.add_argument("--fit", action="store_true", help="print the sass.constants miss times that fit the recording")
    args = ap.parse_args()
    if args.gpu:
        write_result(measure(), args.out)
        return 0
    if args.fit:
        for key, ns in fitted_ns().items():
            print(f"sass.constants.{key}: {ns}")
        return 0
    sets = tuple(args.set)
    rec = recorded(RECORDED, "window")
    print(f"{'case':<22} {'window':<48} {'H100 first':>10} {'model':>6} {'H100 later':>11} {'model':>6}")
    for case, (_, what) in WINDOWS.items():
        hw = rec.get(case, {})
        print(f"{case:<22} {what:<48} {hw.get('first launch', float('nan')):10.0f} {simulated(case, sets, 1):6.0f} "
              f"{hw.get('later launches (median)', float('nan')):11.0f} {simulated(case, sets, 2):6.0f}")
    ranks = recorded(RECORDED, "window_by_rank_on_sm")
    print("\nblocks one after the other on an SM, window by rank (H100 later launches / model)")
    for name in BLOCK_KERNELS:
        hw = ranks.get(name, {}).get("later launches (median)", {}).get("by rank", [])
        print(f"{name:<22} H100 {hw}  model {simulated_ranks(name, sets)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
