#!/usr/bin/env python
"""Whether what a DMUL costs 8 warps per sub-partition among FMULs depends on the warps' phase:
on the GPU (--gpu) and in the simulator (default).  One block of 1 to 8 warps per sub-partition runs STEPS steps
of 8 independent multiplies, 0, 1, 2 or 4 of them DMUL (the t-fp64-issue-f0/d1/d2/d4 loop); before
the loop the warp in slot s of its sub-partition runs s x PAD steps of an FMUL chain, so each PAD
starts the warps in another phase (tools/kernels/dmul_phase.cu, its PTX and the committed cubin).

    python tools/dmul_phase.py --gpu --out programs/probes/t-fp64-issue-d2/reference/h100-dmul-phase.json
    python tools/dmul_phase.py              # the simulator beside the recorded figures
    python tools/dmul_phase.py --set 'sass.write_port_units=[fp32, int, fp64]'

Where the warps wait (Nsight Compute's issue-stall reasons per warp-iteration, each launch of the
--gpu run profiled; the median of the eight after the first), on the GPU and then beside the model:

    ncu --csv --log-file ncu.csv --metrics "$(python tools/dmul_phase.py --ncu-metrics)" \
        python tools/dmul_phase.py --gpu
    python tools/dmul_phase.py --ncu-csv ncu.csv --out programs/probes/t-fp64-issue-d2/reference/h100-dmul-phase-stalls.json
    python tools/dmul_phase.py --stalls
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import (STALL_METRIC, gpu_medians, ncu_csv_launches, ncu_option_done, ncu_probe_parser,  # noqa: E402  (tools/, beside this file)
                          ncu_stall_cycles, print_stalls_beside, recorded, simulate_block, span_per_warp_step,
                          write_result)  # noqa: E402  (tools/, beside this file)
PTX = ROOT / "tools" / "kernels" / "dmul_phase.ptx"
RECORDED = ROOT / "programs" / "probes" / "t-fp64-issue-d2" / "reference" / "h100-dmul-phase.json"
RECORDED_STALLS = RECORDED.with_name("h100-dmul-phase-stalls.json")
REASONS = ("dispatch_stall", "not_selected", "math_pipe_throttle", "wait", "selected", "no_instruction",
           "branch_resolving")
LAUNCHES = 9                    # gpu_medians' launches per kernel and set, the first warming the caches
STEPS = 256
KERNELS = {"k_f0": "8 FMUL", "k_d1": "1 DMUL + 7 FMUL", "k_d2": "2 DMUL + 6 FMUL", "k_d4": "4 DMUL + 4 FMUL"}
# (threads, PAD): 1, 2 and 4 warps per sub-partition, and 8 in several phases
SETS = {"1 warp/SMSP": (128, 0), "2 warps/SMSP": (256, 0), "4 warps/SMSP": (512, 0),
        **{f"8 warps/SMSP, pad {p}": (1024, p) for p in (0, 1, 2, 3, 5, 7)}}
M, MD = np.float32(0.9999), np.float64(0.9999)


def launch(cp, f, name: str, at: tuple[int, int]) -> list[float]:
    threads, pad = at
    clk, out = cp.zeros(64, cp.int64), cp.zeros(threads, cp.float32)
    f((1,), (threads,), (clk, out, M, MD, np.int32(pad)))
    cp.cuda.runtime.deviceSynchronize()
    return span_per_warp_step(clk.get(), threads, STEPS)


def run_block(name: str, at: tuple[int, int], overrides: tuple[str, ...] = ()):
    """The kernel's block with (threads, PAD) in the model: simt_sim's Result."""
    threads, pad = at
    bufs = {"clk": np.zeros(64, np.int64), "out": np.zeros(threads, np.float32)}
    return simulate_block(PTX, name, threads, ["clk", "out", M, MD, np.int32(pad)], bufs, overrides)


def simulated(name: str, at: tuple[int, int], overrides: tuple[str, ...] = ()) -> float:
    return span_per_warp_step(run_block(name, at, overrides).outputs["clk"], at[0], STEPS)[0]


def extra_per_dmul_kernel(per: dict[str, dict[str, float]]) -> dict[str, list[float]]:
    """Per DMUL kernel, the cycles a warp-iteration costs beyond the FMUL loop's in each set `per` has."""
    return {name: [round(per[name][s] - per["k_f0"][s], 3) for s in per["k_f0"]] for name in KERNELS if name != "k_f0"}


def ncu_metrics() -> list[str]:
    return ["smsp__inst_executed.sum", *[STALL_METRIC.format(r) for r in REASONS]]


def stalls_from_ncu_csv(path: str) -> dict[str, dict[str, float]]:
    """Per "KERNEL / SET", warp-cycles per warp-iteration in each stall reason, from ncu's CSV of
    the --gpu run (its launches in gpu_medians' order: kernel, set, LAUNCHES each)."""
    import statistics
    ordered = ncu_csv_launches(path)
    keys = [f"{k} / {s}" for k in KERNELS for s in SETS]
    if len(ordered) != LAUNCHES * len(keys):
        raise SystemExit(f"{path}: {len(ordered)} launches, expected {LAUNCHES * len(keys)}")
    out = {}
    for j, key in enumerate(keys):
        warps = SETS[key.split(" / ")[1]][0] // 32
        runs = ordered[j * LAUNCHES + 1:(j + 1) * LAUNCHES]
        out[key] = {r: round(statistics.median(ncu_stall_cycles(m, r) for m in runs) / (warps * STEPS), 3)
                    for r in REASONS}
    return out


def simulated_stalls(name: str, at: tuple[int, int], overrides: tuple[str, ...] = ()) -> dict[str, float]:
    stalls = run_block(name, at, overrides).raw.kernels[0]["stall_cycles"]
    return {r: round(stalls[r] / (at[0] // 32 * STEPS), 3) for r in REASONS}


def print_stalls(overrides: tuple[str, ...]) -> None:
    rec = recorded(RECORDED_STALLS, "stalls_per_warp_iteration")
    print_stalls_beside(REASONS, ((f"{name} / {short(label)}", rec.get(f"{name} / {label}", {}),
                                   simulated_stalls(name, at, overrides))
                                  for name in KERNELS for label, at in SETS.items()), 34)


def short(label: str) -> str:
    """'8 warps/SMSP, pad 3' -> '8w p3'."""
    return label.replace(" warps/SMSP", "w").replace(" warp/SMSP", "w").replace(", pad ", " p")


def main() -> int:
    args = ncu_probe_parser(__doc__).parse_args()
    header = {"tool": os.path.basename(__file__), "steps": STEPS, "kernels": KERNELS, "sets": SETS}
    if ncu_option_done(args, header, ncu_metrics(), "stalls_per_warp_iteration", stalls_from_ncu_csv, print_stalls):
        return 0
    if args.gpu:
        write_result({**header, "cycles_per_warp_iteration": gpu_medians(PTX, KERNELS, SETS, launch, 3)}, args.out)
        return 0
    rec = recorded(RECORDED, "cycles_per_warp_iteration")
    hw = {n: {s: rec.get(f"{n} / {s}", [float("nan")])[0] for s in SETS} for n in KERNELS}
    model = {n: {s: simulated(n, at, tuple(args.set)) for s, at in SETS.items()} for n in KERNELS}
    print("cycles a warp-iteration costs beyond 8 FMULs; warps per sub-partition, and for 8 the start stagger (PAD)")
    print(f"{'kernel':<18} {'':<6}" + "".join(f"{short(s):>9}" for s in SETS))
    for who, per in (("H100", hw), ("model", model)):
        for name, extra in extra_per_dmul_kernel(per).items():
            print(f"{KERNELS[name]:<18} {who:<6}" + "".join(f"{e:9.2f}" for e in extra))
        print(f"{'8 FMUL (cycles)':<18} {who:<6}" + "".join(f"{per['k_f0'][s]:9.2f}" for s in SETS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
