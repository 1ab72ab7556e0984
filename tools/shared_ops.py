#!/usr/bin/env python
"""How many shared-memory instructions of each kind one SM takes per cycle: on the GPU (--gpu) and
in the simulator (default).  One block of 1, 4 or 32 warps; every warp runs 64 iterations of 8
independent instructions of one kind (tools/kernels/shared_ops.cu, its PTX and the
committed cubin beside it: LDS.32, LDS.64, LDS.128, STS.U16, STS.64, STS.128, LDSM.16.M88.4 and
its transposed form, all conflict-free; LDS.128 with every lane at one address and LDS.32 with two
lanes on each bank); the rate is the warps' instructions over
the span from the first warp's start to the last warp's end.  Dependent chains (one warp, each
load's address taking the previous load's data) give each kind's latency plus one IADD.

    python tools/shared_ops.py --gpu --out programs/probes/t-mio-w1/reference/h100-shared-ops.json
    python tools/shared_ops.py            # the simulator's rates beside the recorded ones
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
PTX = ROOT / "tools" / "kernels" / "shared_ops.ptx"
sys.path.insert(0, str(ROOT))
from probe_output import simulate_block, warp_rate  # noqa: E402  (tools/, beside this file)
RECORDED = ROOT / "programs" / "probes" / "t-mio-w1" / "reference" / "h100-shared-ops.json"
KERNELS = {"k_lds32": "LDS.32", "k_lds64": "LDS.64", "k_lds128": "LDS.128", "k_sts16": "STS.U16",
           "k_sts64": "STS.64", "k_sts128": "STS.128", "k_ldsm4": "LDSM.16.M88.4", "k_ldsm4t": "LDSM.16.MT88.4",
           "k_lds128_bcast": "LDS.128 broadcast", "k_lds32_2way": "LDS.32 2-way"}
CHAINS = {"k_chain_lds32": "LDS.32", "k_chain_lds64": "LDS.64", "k_chain_lds128": "LDS.128",
          "k_chain_lds128_bcast": "LDS.128 broadcast", "k_chain_ldsm1": "LDSM.16.M88",
          "k_chain_ldsm2": "LDSM.16.M88.2", "k_chain_ldsm4": "LDSM.16.M88.4"}
WARPS = (1, 4, 32)
CHAIN_STEPS = 256
PER_WARP = 64 * 8


def rate(clk: np.ndarray, warps: int) -> float:
    return warp_rate(clk, warps, PER_WARP)


def gpu_rates() -> tuple[dict, dict]:
    import cupy as cp
    mod = cp.RawModule(path=str(PTX))
    out, chains = {}, {}
    for name in KERNELS:
        f = mod.get_function(name)
        for warps in WARPS:
            clk, res = cp.zeros(64, cp.int64), cp.zeros(1024, cp.uint32)
            rates = []
            for _ in range(5):                      # the first launch warms the instruction caches
                f((1,), (32 * warps,), (clk, res))
                cp.cuda.runtime.deviceSynchronize()
                rates.append(rate(clk.get(), warps))
            out[f"{name}/{warps}"] = round(float(np.median(rates[1:])), 3)
    for name in CHAINS:
        f = mod.get_function(name)
        clk, res = cp.zeros(64, cp.int64), cp.zeros(1024, cp.uint32)
        steps = []
        for _ in range(5):
            f((1,), (32,), (clk, res))
            cp.cuda.runtime.deviceSynchronize()
            c = clk.get()
            steps.append((c[1] - c[0]) / CHAIN_STEPS)
        chains[name] = round(float(np.median(steps[1:])), 2)
    return out, chains


def simulated_clk(name: str, warps: int, overrides: tuple[str, ...] = ()) -> np.ndarray:
    bufs = {"clk": np.zeros(64, np.int64), "out": np.zeros(1024, np.uint32)}
    return simulate_block(PTX, name, 32 * warps, ["clk", "out"], bufs, overrides).outputs["clk"]


def simulated_rate(name: str, warps: int, overrides: tuple[str, ...] = ()) -> float:
    return round(rate(simulated_clk(name, warps, overrides), warps), 3)


def simulated_chain(name: str) -> float:
    c = simulated_clk(name, 1)
    return round(float(c[1] - c[0]) / CHAIN_STEPS, 2)


def simulated_load_latency(name: str, overrides: tuple[str, ...] = ()) -> int:
    """Cycles from issue until the data of a chain kernel's shared-memory load is ready (the model's
    latency of that load; its chain may be bound by the loop instead)."""
    from simt_sim.isa import encoding as E
    from simt_sim.machine.layout import TR_CYCLE, TR_PC, TR_READY
    bufs = {"clk": np.zeros(64, np.int64), "out": np.zeros(1024, np.uint32)}
    res = simulate_block(PTX, name, 32, ["clk", "out"], bufs, overrides, trace=True).raw
    pcs = [pc for pc, row in enumerate(res.launches[0].program.code)
           if row[E.F_SPACE] == E.SP_SHARED and row[E.F_OP] in (E.OP_LD, E.OP_LDMATRIX)]
    trace = res.trace
    rows = trace[np.isin(trace[:, TR_PC], pcs)]
    return int(np.median(rows[:, TR_READY] - rows[:, TR_CYCLE]))


def main() -> int:
    from probe_output import probe_parser, write_result
    ap = probe_parser(__doc__)
    ap.add_argument("--gpu", action="store_true", help="measure on the GPU (else simulate)")
    args = ap.parse_args()
    if args.gpu:
        rates, chains = gpu_rates()
        write_result({"tool": os.path.basename(__file__), "kernels": KERNELS, "chains": CHAINS,
                      "warp_insts_per_cycle_per_sm": rates, "chain_cycles_per_step": chains}, args.out)
        return 0
    rec = json.loads(RECORDED.read_text())
    hw = rec["warp_insts_per_cycle_per_sm"]
    print(f"{'instruction':<16} {'warps':>5} {'H100':>7} {'model':>7}")
    for name, label in KERNELS.items():
        for warps in WARPS:
            print(f"{label:<16} {warps:>5} {hw[f'{name}/{warps}']:>7.3f} {simulated_rate(name, warps):>7.3f}")
    chains = rec["chain_cycles_per_step"]
    print(f"\n{'dependent chain':<18} {'H100':>7} {'model':>7}  {'H100 - LDS.32':>13} {'model latency':>13}")
    for name, label in CHAINS.items():
        print(f"{label:<18} {chains[name]:>7.2f} {simulated_chain(name):>7.2f}  "
              f"{chains[name] - chains['k_chain_lds32']:>+13.2f} {simulated_load_latency(name):>13d}")
    print("(chain: cycles per step, the load and an IADD; the model's chains may be bound by the loop, so its "
          "load latency is beside them)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
