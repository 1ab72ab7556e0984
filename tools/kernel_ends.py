#!/usr/bin/env python
"""What a kernel's start and end cost beside its warps' own lives: Nsight Compute's counters of
small kernels (tools/kernels/kernel_ends.cu, its PTX and the committed cubin beside it) on the GPU
(--gpu) and the model's beside them (default).  Each case runs as one warp, one block of four and
132 blocks of four.  From ncu's stall counters (every cycle of a resident warp counts in one
reason) each warp's life follows; the kernel's cycles beyond the mean life are the launch's and
the end's.  Two recordings: with ncu's caches flushed before each launch (`--cache-control all`,
as validate's references) and without (`none`: the code and constants a launch before left).

    k_empty         LDC R1, EXIT                         the launch alone
    k_store         LDC of the flag, @!P0 EXIT, STG       flag 0: exits before the store
    k_store_spin    the same, then a clock64 spin         the store long in memory at EXIT

    M=$(python tools/kernel_ends.py --ncu-metrics)
    ncu --csv --log-file all.csv --cache-control all --metrics "$M" python tools/kernel_ends.py --gpu --ncu-launches
    ncu --csv --log-file none.csv --cache-control none --metrics "$M" python tools/kernel_ends.py --gpu --ncu-launches
    python tools/kernel_ends.py --ncu-csv all.csv --ncu-csv-warm none.csv \\
        --out programs/probes/launch-empty/reference/h100-kernel-ends.json
    python tools/kernel_ends.py            # the recording beside the model
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import STALL_METRIC, model_probe_parser, ncu_csv_launches, recorded, write_result  # noqa: E402
PTX = ROOT / "tools" / "kernels" / "kernel_ends.ptx"
RECORDED = ROOT / "programs" / "probes" / "launch-empty" / "reference" / "h100-kernel-ends.json"
SPIN = 3000                       # cycles: a store's L2 write is some 250
CASES = {"empty": ("k_empty", None), "store, flag 0": ("k_store", 0), "store": ("k_store", 1),
         "spin": ("k_store_spin", 0), "store, spin": ("k_store_spin", 1)}
SETS = {"1 warp": (1, 32), "1 block of 4 warps": (1, 128), "132 blocks of 4 warps": (132, 128)}
REASONS = ("selected", "not_selected", "wait", "short_scoreboard", "long_scoreboard", "math_pipe_throttle",
           "lg_throttle", "mio_throttle", "branch_resolving", "barrier", "no_instruction", "drain",
           "dispatch_stall", "imc_miss", "misc", "membar", "sleeping", "tex_throttle")
CYCLES = "sm__cycles_elapsed.max"
METRICS = (CYCLES, "gpc__cycles_elapsed.max", "gpu__time_duration.sum", "smsp__inst_executed.sum",
           "gpc__cycles_elapsed.avg.per_second")
NCU_LAUNCHES = 5


def kernel_args(case: str, out) -> tuple:
    name, flag = CASES[case]
    if flag is None:
        return ()
    return (out, np.int32(flag)) + ((np.int32(SPIN),) if name == "k_store_spin" else ())


def ncu_metrics() -> list[str]:
    return [*METRICS, *[STALL_METRIC.format(r) for r in REASONS]]


def ncu_launches() -> None:
    """Each (case, set) launched NCU_LAUNCHES times, in CASES x SETS order, for ncu to profile."""
    import cupy as cp
    mod = cp.RawModule(path=str(PTX))
    out = cp.zeros(132 * 128, cp.int32)
    for case, (name, _) in CASES.items():
        f = mod.get_function(name)
        for grid, block in SETS.values():
            for _ in range(NCU_LAUNCHES):
                f((grid,), (block,), kernel_args(case, out))
                cp.cuda.runtime.deviceSynchronize()


def figures(cycles: float, insts: float, warps: int, per_issue: dict[str, float]) -> dict[str, float]:
    """The kernel's cycles, a warp's mean life and its no_instruction / drain / imc_miss cycles,
    and the cycles beyond the life (launch and end)."""
    life = sum(per_issue.values()) * insts / warps
    row = {"cycles": cycles, "life": life, "beyond_life": cycles - life}
    row.update({r: per_issue.get(r, 0.0) * insts / warps for r in ("no_instruction", "drain", "imc_miss")})
    return {k: round(v, 1) for k, v in row.items()}


def from_ncu_csv(path: str) -> dict[str, dict[str, float]]:
    """Per "CASE / SET", from ncu's CSV of --ncu-launches: the medians over its launches of
    figures(), and the clock ncu ran at."""
    launches = ncu_csv_launches(path)
    keys = [(c, s) for c in CASES for s in SETS]
    if len(launches) != NCU_LAUNCHES * len(keys):
        raise SystemExit(f"{path}: {len(launches)} launches, expected {NCU_LAUNCHES * len(keys)}")
    out = {}
    for j, (case, label) in enumerate(keys):
        rows = []
        for m in launches[j * NCU_LAUNCHES:(j + 1) * NCU_LAUNCHES]:
            grid, block = SETS[label]
            per_issue = {r: m.get(STALL_METRIC.format(r), 0.0) for r in REASONS}
            rows.append({**figures(m[CYCLES], m["smsp__inst_executed.sum"], grid * block // 32, per_issue),
                         "ns": m["gpu__time_duration.sum"], "mhz": m["gpc__cycles_elapsed.avg.per_second"] / 1e6})
        out[f"{case} / {label}"] = {k: round(float(np.median([r[k] for r in rows])), 1) for k in rows[0]}
    return out


def simulated(case: str, label: str, warm: bool, mhz: float, overrides: tuple[str, ...] = ()) -> dict[str, float]:
    """figures() of the model's run of (case, set) under Nsight Compute's conditions at `mhz`,
    its caches flushed or (warm) not."""
    import simt_sim
    name, _ = CASES[case]
    grid, block = SETS[label]
    prog = simt_sim.load_program(str(PTX), name, isa="sass")
    cfg = simt_sim.load_config("h100", list(overrides)).under_profiler(mhz)
    if warm:
        cfg = cfg.with_overrides(["host.caches_flushed=false"])
    args = ["out", *[int(a) for a in kernel_args(case, 0)[1:]]] if CASES[case][1] is not None else []
    res = simt_sim.simulate([simt_sim.Launch(prog, grid, block, args)], {"out": np.zeros(132 * 128, np.int32)}, cfg)
    k = res.raw.kernels[0]
    return figures(res.cycles, k["warp_instructions"], grid * block // 32, k["stall_per_issue"])


def fit_first_line_ns(rec: dict) -> float:
    """sass.fetch.flushed_first_line_ns: the median over every (case, set) of the cycles a warp
    waits no_instruction with the caches flushed beyond without, in ns at ncu's clock (the model's
    first line takes its L1 line time either way, and the flush adds this)."""
    extra = [(rec["flushed"][key]["no_instruction"] - rec["warm"][key]["no_instruction"]) * 1000.0
             / rec["flushed"][key]["mhz"] for key in rec["flushed"]]
    return round(float(np.median(extra)), 1)


def recorded_trailing_store(rec: dict, label: str, cond: str) -> float:
    """What a trailing store adds to the kernel beyond its warps' lives on the GPU: `store`
    against `store, flag 0` (the same SASS)."""
    return rec[cond][f"store / {label}"]["beyond_life"] - rec[cond][f"store, flag 0 / {label}"]["beyond_life"]


def simulated_trailing_store(label: str, cond: str, mhz: float, overrides: tuple[str, ...] = ()) -> float:
    return (simulated("store", label, cond == "warm", mhz, overrides)["beyond_life"]
            - simulated("store, flag 0", label, cond == "warm", mhz, overrides)["beyond_life"])


def store_ack_error(rec: dict, ns: float) -> float:
    """How far the model's lone warp's trailing store, with sass.store_ack_ns = ns, is from the
    GPU's (the mean with and without the flush)."""
    conds = ("flushed", "warm")
    mhz = rec["flushed"]["store / 1 warp"]["mhz"]
    want = np.mean([recorded_trailing_store(rec, "1 warp", c) for c in conds])
    return float(abs(np.mean([simulated_trailing_store("1 warp", c, mhz, (f"sass.store_ack_ns={ns}",))
                              for c in conds]) - want))


def fit_store_ack_ns(rec: dict) -> float:
    """sass.store_ack_ns: the value (steps of 5 ns) whose lone warp's trailing store costs the
    model what it costs the GPU."""
    err = {ns: store_ack_error(rec, ns) for ns in range(0, 200, 5)}
    return float(min(err, key=err.get))


def main() -> int:
    ap = model_probe_parser(__doc__)
    ap.add_argument("--ncu-metrics", action="store_true", help="print the metrics ncu should collect")
    ap.add_argument("--ncu-launches", action="store_true", help="with --gpu: the launches for ncu to profile")
    ap.add_argument("--ncu-csv", help="ncu's CSV of the launches with the caches flushed (--cache-control all)")
    ap.add_argument("--ncu-csv-warm", help="and without (--cache-control none): both into --out")
    ap.add_argument("--fit", action="store_true",
                    help="sass.fetch.flushed_first_line_ns and sass.store_ack_ns from the recording")
    args = ap.parse_args()
    if args.fit:
        import json
        rec = json.loads(RECORDED.read_text())
        print(f"sass.fetch.flushed_first_line_ns: {fit_first_line_ns(rec)}")
        print(f"sass.store_ack_ns: {fit_store_ack_ns(rec)}")
        return 0
    if args.ncu_metrics:
        print(",".join(ncu_metrics()))
        return 0
    if args.gpu and args.ncu_launches:
        ncu_launches()
        return 0
    if args.ncu_csv:
        from probe_output import gpu_name
        write_result({"tool": os.path.basename(__file__), "device": gpu_name(), "spin": SPIN, "cases": CASES,
                      "sets": SETS, "flushed": from_ncu_csv(args.ncu_csv),
                      "warm": from_ncu_csv(args.ncu_csv_warm) if args.ncu_csv_warm else {}}, args.out)
        return 0
    shown = ("cycles", "life", "beyond_life", "no_instruction", "drain", "imc_miss")
    for cond in ("flushed", "warm"):
        rec = recorded(RECORDED, cond)
        print(f"caches {cond}: per warp, H100 / model")
        print(f"{'case / set':<38}" + "".join(f"{s:>17}" for s in shown))
        for case in CASES:
            for label in SETS:
                hw = rec.get(f"{case} / {label}")
                mhz = hw["mhz"] if hw else 1590.0
                model = simulated(case, label, cond == "warm", mhz, tuple(args.set))
                print(f"{case + ' / ' + label:<38}" + "".join(
                    f"{(hw or {}).get(s, float('nan')):8.0f}/{model[s]:<8.0f}" for s in shown))
    return 0


if __name__ == "__main__":
    sys.exit(main())
