#!/usr/bin/env python
"""Which of an SM's blocks finish first: on the GPU (--gpu) and in the simulator (default).  A
grid of B blocks per SM (132 x B on the H100, B on the model's one SM) runs the same loop in
every warp (tools/kernels/block_order.cu, its PTX and the committed cubin): 256 x 8 FMULs, one
dependent chain (k_chain) or four (k_chains4).  Lane 0 of each warp records its clock before and
after the loop, its SM and its block.  Per SM, the blocks in launch order (block index) have
ranks 0..B-1; the figures are, over the SMs that hold exactly B blocks, the mean of each rank's
end (its last warp's) and start, in cycles from the SM's first start.
Whether a later kernel's blocks count as younger (STREAM_SETS): 4 blocks per SM of a loop 8
times longer, then 2 blocks per SM of the plain loop in a second stream, which start some
microseconds later, while the first kernel's blocks still fill every scheduler; the figures are
each rank's span (end - own start), the second kernel's ranks 4-5.

    python tools/block_order.py --gpu --out programs/workloads/w-fusion-cd-only/reference/h100-block-order.json
    python tools/block_order.py                 # the simulator beside the recorded figures
    python tools/block_order.py --set scheduler.policy=ogr

Does the order come with ptxas's yield hints?  --yield-hints runs the same kernels from committed
cubins with the hint set on every FMUL (tools/kernels/block_order_yield: k_chains4's FMULs have
none from ptxas) and cleared on every FMUL (block_order_noyield: k_chain's have it), their
sass-patch.yaml files beside them:

    python tools/block_order.py --yield-hints --gpu --out programs/workloads/w-fusion-cd-only/reference/h100-block-order-yield.json
    python tools/block_order.py --yield-hints [--set scheduler.policy=ogr]
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

from simt_sim.frontend.sass import committed_cubin_path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import gpu_medians, model_probe_parser, recorded, write_result  # noqa: E402  (tools/, beside this file)
PTX = ROOT / "tools" / "kernels" / "block_order.ptx"
RECORDED = ROOT / "programs" / "workloads" / "w-fusion-cd-only" / "reference" / "h100-block-order.json"
RECORDED_YIELD = RECORDED.with_name("h100-block-order-yield.json")
YIELD_VARIANTS = {"a hint on every FMUL": "block_order_yield", "no FMUL hints": "block_order_noyield"}
YIELD_SETS = ("4 blocks of 128", "8 blocks of 128", "4 blocks of 256")
ITERS = 256
KERNELS = {"k_chain": "one dependent FMUL chain a warp", "k_chains4": "four independent chains a warp"}
SETS = {"2 blocks of 128": (2, 128), "4 blocks of 128": (4, 128), "8 blocks of 128": (8, 128),
        "2 blocks of 512": (2, 512), "4 blocks of 256": (4, 256)}      # (blocks per SM, threads)
STREAM_SETS = {"4 long + 2 blocks of 128, two streams": ((4, 8 * ITERS), (2, ITERS))}   # per kernel: (blocks per SM, iters)
M = np.float32(0.9999)


def buffers(blocks: int, threads: int) -> dict:
    n = blocks * threads
    return {"in": np.random.default_rng(5).uniform(0.9, 1.1, n).astype(np.float32),
            "out": np.zeros(n, np.float32), "clk": np.zeros(4 * n // 32, np.int64)}


def args(iters: int = ITERS) -> list:
    return ["in", "out", "clk", M, np.int32(iters)]


def rank_figures(clk: np.ndarray, per_sm: int, spans: bool = False) -> list[float]:
    """[SMs holding exactly per_sm blocks, each rank's mean end (spans: end - its own start), each
    rank's mean start]."""
    rec = np.asarray(clk).reshape(-1, 4).astype(np.int64)       # start, end, SM, block per warp
    ends, starts = [], []
    for sm in np.unique(rec[:, 2]):
        mine = rec[rec[:, 2] == sm]
        blocks = np.unique(mine[:, 3])
        if len(blocks) != per_sm:
            continue
        first = mine[:, 0].min()
        own = [mine[mine[:, 3] == b] for b in blocks]
        block_starts = [o[:, 0].min() for o in own]
        ends.append([o[:, 1].max() - (start if spans else first) for o, start in zip(own, block_starts)])
        starts.append([start - first for start in block_starts])
    if not ends:
        return [0.0] + [float("nan")] * (2 * per_sm)
    return [float(len(ends)), *np.mean(ends, axis=0).tolist(), *np.mean(starts, axis=0).tolist()]


def gpu_kernels(cp, f, kernels, threads: int, spans: bool = False) -> list[float]:
    """On the GPU: each kernel of `kernels` ((blocks per SM, iters) each) in its own stream, one
    after the other; rank_figures of their blocks together."""
    n_sm = cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
    streams = [cp.cuda.Stream(non_blocking=True) for _ in kernels]
    bufs = [{k: cp.asarray(v) for k, v in buffers(per_sm * n_sm, threads).items()} for per_sm, _ in kernels]
    cp.cuda.runtime.deviceSynchronize()
    for stream, b, (per_sm, iters) in zip(streams, bufs, kernels):
        with stream:
            f((per_sm * n_sm,), (threads,), tuple(b[a] if isinstance(a, str) else a for a in args(iters)))
    cp.cuda.runtime.deviceSynchronize()
    clks = [b["clk"].get() for b in bufs]
    return rank_figures(stacked(clks, [per_sm * n_sm for per_sm, _ in kernels]), sum(k[0] for k in kernels), spans)


def launch(cp, f, name: str, active) -> list[float]:
    per_sm, threads = active
    return gpu_kernels(cp, f, [(per_sm, ITERS)], threads)


def stream_launch(cp, f, name: str, kernels) -> list[float]:
    return gpu_kernels(cp, f, kernels, 128, spans=True)


def stacked(clks: list[np.ndarray], blocks: list[int]) -> np.ndarray:
    """The kernels' clock records as one, each kernel's blocks numbered after the earlier ones'."""
    recs = [np.asarray(c).reshape(-1, 4).astype(np.int64).copy() for c in clks]
    for j, r in enumerate(recs):
        r[:, 3] += sum(blocks[:j])
    return np.concatenate(recs).reshape(-1)


def simulated_kernels(name: str, kernels, threads: int, overrides=(), spans: bool = False, ptx: Path = PTX) -> list[float]:
    """gpu_kernels in the model, on one SM of the h100 config with `overrides`."""
    import simt_sim
    prog = simt_sim.load_program(str(ptx), name, isa="sass")
    cfg = simt_sim.load_config("h100", ["num_sms=1", *overrides])
    bufs = {f"{k}{j}": v for j, (per_sm, _) in enumerate(kernels) for k, v in buffers(per_sm, threads).items()}
    launches = [simt_sim.Launch(prog, per_sm, threads, [f"{a}{j}" if isinstance(a, str) else a for a in args(iters)],
                                stream=j) for j, (per_sm, iters) in enumerate(kernels)]
    res = simt_sim.simulate(launches, bufs, cfg)
    return rank_figures(stacked([res.outputs[f"clk{j}"] for j in range(len(kernels))], [k[0] for k in kernels]),
                        sum(k[0] for k in kernels), spans)


def simulated(name: str, active, overrides: tuple[str, ...] = (), ptx: Path = PTX) -> list[float]:
    per_sm, threads = active
    return simulated_kernels(name, [(per_sm, ITERS)], threads, overrides, ptx=ptx)


def simulated_streams(name: str, kernels, overrides: tuple[str, ...] = ()) -> list[float]:
    return simulated_kernels(name, kernels, 128, overrides, spans=True)


def print_ranks(label: str, hw, model, n: int) -> None:
    hw_ends = hw[1:1 + n] if hw else [float("nan")] * n
    print(f"  {label:<16} " + "  ".join(f"{h:6.0f} / {m:<6.0f}" for h, m in zip(hw_ends, model[1:1 + n]))
          + (f"   ({hw[0]:.0f} SMs)" if hw else ""))


def yield_hints(a) -> int:
    sets = {label: SETS[label] for label in YIELD_SETS}
    if a.gpu:
        write_result({"tool": os.path.basename(__file__), "iters": ITERS, "kernels": KERNELS, "sets": sets,
                      "ranks": {v: gpu_medians(committed_cubin_path(PTX.with_name(f"{stem}.ptx")), KERNELS, sets, launch, 1)
                                for v, stem in YIELD_VARIANTS.items()}}, a.out)
        return 0
    rec = recorded(RECORDED_YIELD, "ranks")
    print("each block's end by its launch order on the SM, cycles from the SM's first start: H100 / model")
    for variant, stem in YIELD_VARIANTS.items():
        for name in KERNELS:
            print(f"{name}, {variant}:")
            for label, active in sets.items():
                model = simulated(name, active, tuple(a.set), PTX.with_name(f"{stem}.ptx"))
                print_ranks(label, rec.get(variant, {}).get(f"{name} / {label}"), model, active[0])
    return 0


def main() -> int:
    ap = model_probe_parser(__doc__)
    ap.add_argument("--yield-hints", action="store_true",
                    help="the committed cubins with the yield hint set and cleared on every FMUL")
    a = ap.parse_args()
    if a.yield_hints:
        return yield_hints(a)
    if a.gpu:
        write_result({"tool": os.path.basename(__file__), "iters": ITERS, "kernels": KERNELS, "sets": SETS,
                      "ranks": gpu_medians(PTX, KERNELS, SETS, launch, 1),
                      "stream_sets": STREAM_SETS,
                      "stream_ranks": gpu_medians(PTX, ["k_chain"], STREAM_SETS, stream_launch, 1)}, a.out)
        return 0
    rec = recorded(RECORDED, "ranks")
    print("each block's end by its launch order on the SM, cycles from the SM's first start: H100 / model")
    for name, what in KERNELS.items():
        print(f"{name}: {what}")
        for label, active in SETS.items():
            print_ranks(label, rec.get(f"{name} / {label}"), simulated(name, active, tuple(a.set)), active[0])
    rec_streams = recorded(RECORDED, "stream_ranks")
    print("each block's span (end - its own start), the first kernel's ranks first: H100 / model")
    for label, kernels in STREAM_SETS.items():
        hw = rec_streams.get(f"k_chain / {label}")
        model = simulated_streams("k_chain", kernels, tuple(a.set))
        n = sum(k[0] for k in kernels)
        hw_spans = hw[1:1 + n] if hw else [float("nan")] * n
        print(f"k_chain, {label}: " + "  ".join(f"{h:6.0f} / {m:<6.0f}" for h, m in zip(hw_spans, model[1:1 + n])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
