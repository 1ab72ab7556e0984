#!/usr/bin/env python
"""What bank conflicts cost a shared load: on the GPU (--gpu) and in the simulator (default).  One
block of 1, 4 (one a sub-partition) or 16 (four a sub-partition) warps; every warp runs 64
iterations of 8 independent LDSM.16.M88.4 or LDS.32 whose addresses give 1 to 8 passes through the
banks per 8x8 matrix (LDSM) or per warp (LDS.32) (tools/kernels/bank_conflicts.cu, its PTX and the
committed cubin beside it); one warp's dependent chain of each (its address adding the last load's
data) gives its latency plus one IADD.  Printed: warp-instructions per cycle per SM over the span
from the first warp's start to the last warp's end, and the chains' cycles per step.

    python tools/bank_conflicts.py --gpu --out programs/probes/t-mio-w1/reference/h100-bank-conflicts.json
    python tools/bank_conflicts.py           # the simulator beside the recorded figures

The wavefronts Nsight Compute counts for each kernel's shared loads, per instruction (recorded into
the same file):

    ncu --metrics $(python tools/bank_conflicts.py --wavefront-metrics) --csv \\
        python tools/bank_conflicts.py --launch-all > w.csv
    python tools/bank_conflicts.py --ncu-wavefronts w.csv
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import (gpu_medians, gpu_name, model_probe_parser, ncu_csv_kernels, simulate_block, warp_rate,  # noqa: E402
                          write_result)
PTX = ROOT / "tools" / "kernels" / "bank_conflicts.ptx"
RECORDED = ROOT / "programs" / "probes" / "t-mio-w1" / "reference" / "h100-bank-conflicts.json"
KERNELS = {"ldsm_s16_m128": "LDSM.x4, 1 pass a matrix", "ldsm_s32_m256": "LDSM.x4, 2 a matrix",
           "ldsm_s64_m16": "LDSM.x4, 4 a matrix", "ldsm_s128_m16": "LDSM.x4, 8 a matrix",
           "lds_s4": "LDS.32, 1 pass", "lds_s16": "LDS.32, 4 passes", "lds_s32": "LDS.32, 8 passes"}
WARPS = (1, 4, 16)
PER_WARP, CHAIN_STEPS = 64 * 8, 256
WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
INSTS = ("smsp__inst_executed_op_ldsm.sum", "smsp__inst_executed_op_shared_ld.sum")


def buffers() -> dict:
    return {"clk": np.zeros(64, np.int64), "out": np.zeros(512, np.uint32)}


def launch(cp, f, warps: int) -> np.ndarray:
    b = {k: cp.asarray(v) for k, v in buffers().items()}
    f((1,), (32 * warps,), (b["clk"], b["out"], np.uint32(0)))
    cp.cuda.runtime.deviceSynchronize()
    return b["clk"].get()


def gpu_figures() -> tuple[dict, dict]:
    """Median over 8 launches (after one that warms the instruction caches) of each rate and chain."""
    rates = gpu_medians(PTX, [f"k_{name}" for name in KERNELS], {w: w for w in WARPS},
                        lambda cp, f, name, warps: [warp_rate(launch(cp, f, warps), warps, PER_WARP)], 4)
    chains = gpu_medians(PTX, [f"c_{name}" for name in KERNELS], {1: 1},
                         lambda cp, f, name, warps: [(lambda c: (c[1] - c[0]) / CHAIN_STEPS)(launch(cp, f, 1))], 2)
    return ({k[2:].replace(" / ", "/"): v[0] for k, v in rates.items()},
            {k[2:].split(" / ")[0]: v[0] for k, v in chains.items()})


def simulated_clk(kernel: str, warps: int, overrides=()) -> np.ndarray:
    return simulate_block(PTX, kernel, 32 * warps, ["clk", "out", 0], buffers(), overrides).outputs["clk"]


def record_wavefronts(csv_path: str) -> None:
    """Nsight Compute's shared-load wavefronts per instruction of each k_ kernel -> the recording."""
    per = ncu_csv_kernels(csv_path)
    doc = json.loads(RECORDED.read_text())
    doc["wavefronts_per_load"] = {k[2:]: round(m[WAVEFRONTS] / sum(m[i] for i in INSTS), 3)
                                  for k, m in sorted(per.items()) if k[2:] in KERNELS}
    doc["device"] = gpu_name() if "device" not in doc else doc["device"]
    RECORDED.write_text(json.dumps(doc, indent=1) + "\n")
    print(json.dumps(doc["wavefronts_per_load"], indent=1))


def main() -> int:
    ap = model_probe_parser(__doc__)
    ap.add_argument("--launch-all", action="store_true", help="launch each k_ kernel once with 1 warp (for ncu)")
    ap.add_argument("--wavefront-metrics", action="store_true", help="print the metrics ncu is to collect")
    ap.add_argument("--ncu-wavefronts", help="ncu's CSV of --launch-all: record the wavefronts per load")
    args = ap.parse_args()
    if args.wavefront_metrics:
        print(",".join((WAVEFRONTS, *INSTS)))
        return 0
    if args.launch_all:
        import cupy as cp
        mod = cp.RawModule(path=str(PTX))
        for name in KERNELS:
            launch(cp, mod.get_function(f"k_{name}"), 1)
        return 0
    if args.ncu_wavefronts:
        record_wavefronts(args.ncu_wavefronts)
        return 0
    if args.gpu:
        rates, chains = gpu_figures()
        write_result({"tool": os.path.basename(__file__), "device": gpu_name(), "kernels": KERNELS,
                      "warp_insts_per_cycle_per_sm": rates, "chain_cycles_per_step": chains}, args.out)
        return 0
    rec = json.loads(RECORDED.read_text()) if RECORDED.exists() else {}
    hw, hw_chain, hw_wf = (rec.get(k, {}) for k in ("warp_insts_per_cycle_per_sm", "chain_cycles_per_step",
                                                    "wavefronts_per_load"))
    over = tuple(args.set)
    print(f"{'load':<26} {'wavefronts':>10} " + " ".join(f"{f'{w} warps':>15}" for w in WARPS) + f" {'chain':>15}")
    print(f"{'':<26} {'H100':>10} " + " ".join(f"{'H100 | model':>15}" for _ in WARPS) + f" {'H100 | model':>15}")
    for name, label in KERNELS.items():
        cells = [f"{hw.get(f'{name}/{w}', float('nan')):6.3f} | {warp_rate(simulated_clk(f'k_{name}', w, over), w, PER_WARP):6.3f}"
                 for w in WARPS]
        c = simulated_clk(f"c_{name}", 1, over)
        chain = f"{hw_chain.get(name, float('nan')):6.1f} | {(c[1] - c[0]) / CHAIN_STEPS:6.1f}"
        print(f"{label:<26} {hw_wf.get(name, float('nan')):10.2f} " + " ".join(f"{x:>15}" for x in cells)
              + f" {chain:>15}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
