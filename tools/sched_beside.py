#!/usr/bin/env python
"""Whether a warp waiting on a long-latency result gets its turn back as soon as the result is
there, beside warps that can always issue: on the GPU (--gpu) and in the simulator (default).  On
sub-partition 0 one warp (slot 0, 1 or 3) runs dependent LDS, L1-hit LDG or FFMA chains while 0 to
3 other warps run independent FFMAs (tools/kernels/sched_beside.cu, its PTX and the committed
cubin beside it).  Probe hmma_beside (simt-sim probe hmma_beside) found a dependent LDS chain 3 times slower on the H100
than in the model beside three FFMA warps.  Printed: the chain warp's cycles per load (per FFMA),
and the FFMA warps' cycles per FFMA of the sub-partition.

    python tools/sched_beside.py --gpu --out programs/probes/t-mio-w1/reference/h100-sched-beside.json
    python tools/sched_beside.py           # the simulator beside the recorded figures

Where the warps wait, per SASS instruction (Nsight Compute's PC sampling, 10 launches a kernel):

    ncu --section SourceCounters --section WarpStateStats --page source --print-source sass --csv \
        --import-source no --warp-sampling-interval 0 python tools/sched_beside.py --launch k_ldg_f3_s0 > p.csv
    python tools/sched_beside.py --ncu-page p.csv --launch k_ldg_f3_s0   # adds it to the recording
    python tools/sched_beside.py --stalls k_ldg_f3_s0                   # its instructions' shares, largest reasons

How busy the FMA pipes are (Nsight Compute's per-pipe counters, the median of 10 launches):

    ncu --metrics $(python tools/sched_beside.py --pipe-metrics) --csv python tools/sched_beside.py --launch k_ldg_f0_s0 > m.csv
    python tools/sched_beside.py --ncu-pipes m.csv --launch k_ldg_f0_s0      # adds it to the recording
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import (add_to_recording, gpu_medians, gpu_name, model_probe_parser, ncu_csv_launches,  # noqa: E402
                          recorded, recorded_samples, simulate_block, source_page_run, write_result)
PTX = ROOT / "tools" / "kernels" / "sched_beside.ptx"
RECORDED = ROOT / "programs" / "probes" / "t-mio-w1" / "reference" / "h100-sched-beside.json"
STALLS = ROOT / "programs" / "probes" / "t-mio-w1" / "reference" / "h100-sched-beside-stalls.json"
PIPES = ROOT / "programs" / "probes" / "t-mio-w1" / "reference" / "h100-sched-beside-pipes.json"
PIPE_METRICS = ("sm__inst_executed_pipe_fmaheavy.sum", "sm__inst_executed_pipe_fmalite.sum",
                "sm__pipe_fmaheavy_cycles_active.sum", "sm__pipe_fmalite_cycles_active.sum", "smsp__inst_executed.sum")
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


def record_page(csv_path: str, name: str) -> None:
    """ncu's source page of 10 launches of `name` -> the recorded stalls' run NAME."""
    from simt_sim.calibrate.pc_stalls import NCU_REASONS
    add_to_recording(STALLS, os.path.basename(__file__), name, source_page_run(csv_path, name),
                     reasons=list(NCU_REASONS.values()))


def record_pipes(csv_path: str, name: str) -> None:
    """ncu's PIPE_METRICS of the 10 launches of `name` -> their medians, the recorded pipes' run NAME."""
    launches = ncu_csv_launches(csv_path)
    add_to_recording(PIPES, os.path.basename(__file__), name,
                     {m: float(np.median([la[m] for la in launches])) for m in PIPE_METRICS}, indent=1)


def print_stalls(name: str, overrides: tuple[str, ...]) -> None:
    """The recorded instructions with 2% of the samples or more, beside the model's share of warp-cycles."""
    import simt_sim
    from simt_sim.calibrate.pc_stalls import largest
    from simt_sim.machine.layout import STALL_NAMES
    texts = simt_sim.load_program(str(PTX), name, isa="sass").texts
    hw, reasons = recorded_samples(STALLS, name, texts)
    res = simulate_block(PTX, name, THREADS, ["times", "g", "out", C, D], buffers(), overrides)
    model = res.raw.pc_stalls[0].astype(float)
    print(f"{name}: share of the samples (H100) | of the warp-cycles (model), largest reasons")
    for pc, text in enumerate(texts):
        h, m = hw[pc].sum() / hw.sum(), model[pc].sum() / model.sum()
        if max(h, m) >= 0.02:
            print(f"{pc:4} {text[:36]:36} {h:6.1%} | {m:6.1%}   {largest(hw[pc], reasons, 3)} | {largest(model[pc], STALL_NAMES, 3)}")


def main() -> int:
    ap = model_probe_parser(__doc__)
    ap.add_argument("--launch", metavar="KERNEL", help="launch it 10 times for ncu (with --ncu-page: what the page holds)")
    ap.add_argument("--ncu-page", help="ncu's source page (CSV) of --launch, added to the recorded stalls")
    ap.add_argument("--stalls", metavar="KERNEL", help="the recorded stalls beside the model's")
    ap.add_argument("--pipe-metrics", action="store_true", help="print the per-pipe metrics ncu should collect")
    ap.add_argument("--ncu-pipes", help="ncu's CSV of PIPE_METRICS for --launch, added to the recorded pipes")
    args = ap.parse_args()
    if args.pipe_metrics:
        print(",".join(PIPE_METRICS))
        return 0
    if args.launch and args.ncu_pipes:
        record_pipes(args.ncu_pipes, args.launch)
        return 0
    if args.launch and args.ncu_page:
        record_page(args.ncu_page, args.launch)
        return 0
    if args.launch:
        import cupy as cp
        f = cp.RawModule(path=str(PTX)).get_function(args.launch)
        for _ in range(10):
            launch(cp, f, args.launch, 0)
        return 0
    if args.stalls:
        print_stalls(args.stalls, tuple(args.set))
        return 0
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
