#!/usr/bin/env python
"""When each warp of the warp-specialisation kernel ends: on the GPU (--gpu) and in the simulator
(default).  One block of 1,024 threads runs the loop of programs/include/w_warpspec.cuh (the first
FP64_WARPS warps an FP64 chain, the others an FP32 chain, ITERS x 8 dependent multiplies), each
warp recording its own start and end (tools/kernels/warp_ends.cu, its PTX and the committed
cubin).  With 8 FP64 warps two of them share each scheduler with six FP32 warps: whether they fall
behind is what the study's block span shows only in sum.  The same loop unrolled 8 times takes a
branch once per 64 multiplies instead of 8.

    python tools/warp_ends.py --gpu --out programs/workloads/w-warpspec-fp64w8/reference/h100-warp-ends.json
    python tools/warp_ends.py              # the simulator beside the recorded figures
    python tools/warp_ends.py --sweep 0 0.01 0.015 0.02 0.025 0.03   # gwf's scheduler.slot_weight_step
    python tools/warp_ends.py --set scheduler.policy=gwf                # gwf beside the recording

Does the preference for higher slots come with ptxas's yield hints?  --yield-hints runs the
committed cubins on the GPU (with --gpu; else the model beside that recording): the plain one,
tools/kernels/warp_ends_noyield's, the same SASS with the hint cleared on every FMUL, and
warp_ends_noyields', cleared on the loops' FMULs, DMULs and counter additions too (their
sass-patch.yaml files):

    python tools/warp_ends.py --yield-hints --gpu --out programs/workloads/w-warpspec-fp64w8/reference/h100-warp-ends-yield.json
    python tools/warp_ends.py --yield-hints
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

from simt_sim.frontend.sass import committed_cubin_path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import gpu_medians, model_probe_parser, recorded, simulate_block, slot_means, write_result  # noqa: E402  (tools/, beside this file)
PTX = ROOT / "tools" / "kernels" / "warp_ends.ptx"
ITERS, THREADS = 512, 1024
NO_YIELD = ROOT / "tools" / "kernels" / "warp_ends_noyield.ptx"
NO_YIELDS = ROOT / "tools" / "kernels" / "warp_ends_noyields.ptx"
RECORDED = ROOT / "programs" / "workloads" / "w-warpspec-fp64w8" / "reference" / "h100-warp-ends.json"
RECORDED_YIELD = RECORDED.with_name("h100-warp-ends-yield.json")
YIELD_SETS = {"0 FP64 warps": (0, THREADS), "8 FP64 warps": (8, THREADS),     # (FP64 warps, threads)
              "0 FP64 warps, 4 warps/SMSP": (0, 512), "0 FP64 warps, 2 warps/SMSP": (0, 256),
              "0 FP64 warps, 1 warp/SMSP": (0, 128)}
KERNELS = {"warp_ends": "a taken loop branch every 8 multiplies", "warp_ends_u8": "one every 64 (unroll 8)"}
SETS = {f"{n} FP64 warps": n for n in (0, 4, 8, 32)}
M, MD = np.float32(0.9999), np.float64(0.9999)
FIGURES = ("span", "FP32 warps' mean end", "FP64 warps' mean end", "last FP32 end", "last FP64 end")


def figures(clk: np.ndarray, fp64_warps: int, threads: int = THREADS) -> list[float]:
    """FIGURES, in cycles from the first warp's start, then every warp's end."""
    c = np.asarray(clk)[: 2 * threads // 32].reshape(-1, 2).astype(np.int64)
    ends = c[:, 1] - c[:, 0].min()
    fp32, fp64 = ends[fp64_warps:], ends[:fp64_warps]

    def mean(a):
        return float(a.mean()) if len(a) else float("nan")

    def last(a):
        return float(a.max()) if len(a) else float("nan")
    return [float(ends.max()), mean(fp32), mean(fp64), last(fp32), last(fp64), *map(float, ends)]


def args_for(fp64_warps: int) -> list:
    return ["in", "out32", "out64", "clk", M, MD, np.int32(ITERS), np.int32(fp64_warps)]


def buffers() -> dict:
    return {"in": np.random.default_rng(3).uniform(0.9, 1.1, THREADS).astype(np.float32),
            "out32": np.zeros(THREADS, np.float32), "out64": np.zeros(THREADS, np.float64),
            "clk": np.zeros(64, np.int64)}


def launch(cp, f, name: str, active) -> list[float]:
    """One launch; active: the FP64 warps, or (FP64 warps, threads)."""
    fp64_warps, threads = active if isinstance(active, tuple) else (active, THREADS)
    b = {k: cp.asarray(v) for k, v in buffers().items()}
    f((1,), (threads,), tuple(b[a] if isinstance(a, str) else a for a in args_for(fp64_warps)))
    cp.cuda.runtime.deviceSynchronize()
    return figures(b["clk"].get(), fp64_warps, threads)


def simulated(fp64_warps: int, overrides: tuple[str, ...] = (), kernel: str = "warp_ends", ptx: Path = PTX,
              threads: int = THREADS) -> list[float]:
    res = simulate_block(ptx, kernel, threads, args_for(fp64_warps), buffers(), overrides)
    return figures(res.outputs["clk"], fp64_warps, threads)


def slot_ends(ends: list[float]) -> np.ndarray:
    """Each scheduler slot's mean end, from FIGURES and every warp's end."""
    return slot_means(ends[len(FIGURES):])


def slot_error(step: float, rec: dict) -> float:
    """RMS difference of the slots' mean ends, model against the H100, over every kernel and set,
    with the gwf scheduler and scheduler.slot_weight_step = step."""
    gwf = ("scheduler.policy=gwf", f"scheduler.slot_weight_step={step}")
    err = [slot_ends(simulated(n, gwf, kernel)) - slot_ends(rec[f"{kernel} / {label}"])
           for kernel in KERNELS for label, n in SETS.items()]
    return float(np.sqrt(np.mean(np.square(err))))


def main() -> int:
    ap = model_probe_parser(__doc__)
    ap.add_argument("--sweep", nargs="+", type=float, metavar="STEP",
                    help="the slots' ends' RMS error for each scheduler.slot_weight_step, with gwf")
    ap.add_argument("--yield-hints", action="store_true",
                    help="the committed cubins with and without the FMULs' yield hints")
    args = ap.parse_args()
    if args.yield_hints:
        return yield_hints(args)
    if args.gpu:
        write_result({"tool": os.path.basename(__file__), "iters": ITERS, "sets": SETS, "figures": FIGURES,
                      "cycles": gpu_medians(PTX, KERNELS, SETS, launch, 1)}, args.out)
        return 0
    rec = recorded(RECORDED, "cycles")
    if args.sweep:
        errors = {step: slot_error(step, rec) for step in args.sweep}
        for step, err in errors.items():
            print(f"slot_weight_step {step:<8g} slots' ends RMS error {err:7.0f} cycles")
        print(f"least: {min(errors, key=errors.get):g}")
        return 0
    for kernel, what in KERNELS.items():
        print(f"{kernel}: {what}   (cycles from the first start: H100 / model)")
        for label, n in SETS.items():
            hw = rec.get(f"{kernel} / {label}", [float("nan")] * (len(FIGURES) + THREADS // 32))
            model = simulated(n, tuple(args.set), kernel)
            print(f"  {label}: " + ", ".join(f"{f} {h:.0f} / {m:.0f}" for f, h, m in zip(FIGURES, hw, model)))
            print("    slots' mean ends, slot 0 first: " + "  ".join(
                f"{h:.0f} / {m:.0f}" for h, m in zip(slot_ends(hw), slot_ends(model))))
    return 0


def yield_hints(args) -> int:
    variants = {"ptxas's hints": PTX, "no FMUL yields": NO_YIELD, "no yields in the loops": NO_YIELDS}
    if args.gpu:
        write_result({"tool": os.path.basename(__file__), "iters": ITERS, "sets": YIELD_SETS, "figures": FIGURES,
                      "cycles": {v: gpu_medians(committed_cubin_path(ptx), KERNELS, YIELD_SETS, launch, 1)
                                 for v, ptx in variants.items()}}, args.out)
        return 0
    rec = recorded(RECORDED_YIELD, "cycles")
    for variant, ptx in variants.items():
        for kernel in KERNELS:
            for label, (n, threads) in YIELD_SETS.items():
                hw = rec.get(variant, {}).get(f"{kernel} / {label}")
                model = simulated(n, tuple(args.set), kernel, ptx, threads)
                hw_slots = slot_ends(hw) if hw else [float("nan")] * 8
                print(f"{variant}, {kernel}, {label}: span {hw[0] if hw else float('nan'):.0f} / {model[0]:.0f}; "
                      "slots' mean ends, slot 0 first: " + "  ".join(
                          f"{h:.0f} / {m:.0f}" for h, m in zip(hw_slots, slot_ends(model))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
