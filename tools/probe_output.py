"""What the GPU probe tools not yet in the probe registry share (profiled_chase, host_copy_strides,
launch_sequence, imc_miss, latency_spread, stream_load, shared_ops, mio_queue,
store_read, dispatch_stall, dmul_phase, warp_ends, control_rate, stg_read, tc_tile_rate,
sched_beside, alu_rate, ...; `simt-sim probe --list` lists those moved): an argument parser with --out, the recorded JSON written there and printed
(with the GPU's name), Nsight Compute's CSV and source page read back into a recording of runs,
and one block of a probe kernel run in the model."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

# shared with the probes of the registry (simt_sim/calibrate/probes/), the tools still here re-use them
from simt_sim.calibrate.probes.base import (gpu_medians, gpu_name, recorded, running_warp_steps,  # noqa: F401
                                            span_per_warp_step, warp_rate, write_result)


def probe_parser(doc: str) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--out", help="write the JSON here, the recorded reference (else only print it)")
    return ap


def model_probe_parser(doc: str) -> argparse.ArgumentParser:
    """probe_parser with --gpu (measure; else run the model beside the recording) and --set
    (override config keys in the model)."""
    ap = probe_parser(doc)
    ap.add_argument("--gpu", action="store_true", help="measure on the GPU (else simulate)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="override a key of configs/h100.yaml in the model (repeatable)")
    return ap


STALL_METRIC = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"
PIPE_METRIC = "sm__inst_executed_pipe_{}.sum"


def ncu_stall_cycles(launch: dict, reason: str) -> float:
    """Warp-cycles one profiled launch's warps spent in a stall reason (ncu gives them per issued
    instruction)."""
    return launch[STALL_METRIC.format(reason)] * launch["smsp__inst_executed.sum"]


def print_stalls_beside(reasons, rows, width: int) -> None:
    """The recorded stall reasons beside the model's, a row per (label, H100 {reason: warp-cycles},
    model {reason: warp-cycles}) of `rows` (simulated as the rows are printed)."""
    print("warp-cycles per warp-iteration by Nsight Compute's stall reason, H100 / model")
    print(f"{'kernel / set':<{width}}" + "".join(f"{r[:14]:>15}" for r in reasons))
    for label, hw, model in rows:
        print(f"{label:<{width}}" + "".join(f"{hw.get(r, float('nan')):7.2f}/{model[r]:<7.2f}" for r in reasons))


def ncu_option_done(args, header: dict, metrics, csv_key: str, from_csv, show_stalls) -> bool:
    """Carry out the option of ncu_probe_parser's that args holds, if any: print `metrics`, write
    header + {csv_key: from_csv(CSV)} to --out, or show_stalls(the --set overrides)."""
    if args.ncu_metrics:
        print(",".join(metrics))
    elif args.ncu_csv:
        write_result({**header, csv_key: from_csv(args.ncu_csv)}, args.out)
    elif args.stalls:
        show_stalls(tuple(args.set))
    else:
        return False
    return True


def ncu_probe_parser(doc: str) -> argparse.ArgumentParser:
    """model_probe_parser with the Nsight Compute round trip: --ncu-metrics (print what ncu should
    collect), --ncu-csv (turn ncu's CSV of the --gpu run into the recording, --out) and --stalls
    (the recorded stall reasons beside the model's)."""
    ap = model_probe_parser(doc)
    ap.add_argument("--ncu-metrics", action="store_true", help="print the metrics ncu should collect")
    ap.add_argument("--ncu-csv", help="turn ncu's CSV of the --gpu run into the recorded figures (--out)")
    ap.add_argument("--stalls", action="store_true", help="the stall reasons, recorded beside the model")
    return ap






def ncu_launch_sets(ptx, kernels, warp_sets: dict, launch, times: int) -> None:
    """Each (kernel, set) of a probe launched `times` times, in kernels x sets order, for ncu to
    profile (launch(cupy, function, name, active) as gpu_medians')."""
    import cupy as cp
    mod = cp.RawModule(path=str(ptx))
    for name in kernels:
        f = mod.get_function(name)
        for active in warp_sets.values():
            for _ in range(times):
                launch(cp, f, name, active)


def ncu_rows_per_set(path, kernels, warp_sets: dict, times: int, pipes, reasons, iterations) -> dict:
    """Per "KERNEL / SET", from ncu's CSV of ncu_launch_sets (the last of each set's launches):
    per-pipe instruction counts ("pipe_P"), and warp-cycles per
    warp-iteration in each stall reason (iterations(active): the set's warp-iterations)."""
    ordered = ncu_csv_launches(path)
    keys = [(k, s) for k in kernels for s in warp_sets]
    if len(ordered) != times * len(keys):
        raise SystemExit(f"{path}: {len(ordered)} launches, expected {times * len(keys)}")
    out = {}
    for j, (name, label) in enumerate(keys):
        m = ordered[(j + 1) * times - 1]
        row = {f"pipe_{p}": m[PIPE_METRIC.format(p)] for p in pipes}
        row.update({r: round(ncu_stall_cycles(m, r) / iterations(warp_sets[label]), 3) for r in reasons})
        out[f"{name} / {label}"] = row
    return out


def ncu_csv_rows(path):
    """The metric rows of `ncu --csv` output (a log file, or its standard output with the
    profiler's own lines among them), each a dict of the CSV's columns."""
    import csv
    with open(path, newline="") as f:
        yield from csv.DictReader(line for line in f if line.startswith('"'))


def ncu_metric(row) -> float:
    return float(row["Metric Value"].replace(",", ""))


def ncu_csv_launches(path) -> list[dict[str, float]]:
    """Per profiled launch, in launch order, {metric: value} from `ncu --csv --log-file PATH`."""
    launches: dict[str, dict[str, float]] = {}
    for row in ncu_csv_rows(path):
        launches.setdefault(row["ID"], {})[row["Metric Name"]] = ncu_metric(row)
    return [launches[i] for i in sorted(launches, key=int)]


def ncu_csv_kernels(path) -> dict[str, dict[str, float]]:
    """{kernel name: {metric: value}} from `ncu --csv`, each kernel's last profiled launch."""
    kernels: dict[str, dict[str, float]] = {}
    for row in ncu_csv_rows(path):
        kernels.setdefault(row["Kernel Name"], {})[row["Metric Name"]] = ncu_metric(row)
    return kernels








def slot_means(per_warp) -> "np.ndarray":
    """The mean of each scheduler slot's figures, from one figure per warp of a block (warp w sits
    in slot w // 4 of sub-partition w % 4, on the H100's four)."""
    import numpy as np
    return np.asarray(per_warp, float).reshape(-1, 4).mean(axis=1)




def simulate_block(ptx, kernel: str, threads: int, args: list, buffers: dict, overrides=(), trace: bool = False,
                   launches: int = 1):
    """One block of a probe kernel's SASS (the cubin committed beside its PTX) on one SM of the h100
    config, with `overrides` (KEY=VALUE), `launches` times in a row (sharing the buffers and the
    caches); simt_sim's Result."""
    import simt_sim
    prog = simt_sim.load_program(str(ptx), kernel, isa="sass")
    cfg = simt_sim.load_config("h100", ["num_sms=1", *overrides])
    return simt_sim.simulate([simt_sim.Launch(prog, 1, threads, args)] * launches, buffers, cfg, trace=trace)


def beside(recorded_values, model_values, fmt: str = "6.2f", width: int = 13) -> str:
    """A row's recorded figures and the model's on one line: "H H | M M"."""
    hw = " ".join(f"{v:{fmt}}" for v in recorded_values)
    return f"{hw:>{width}} | " + " ".join(f"{v:{fmt}}" for v in model_values)


def add_to_recording(path: Path, tool: str, key: str, entry: dict, indent: int = 0, **fields) -> None:
    """Add (or replace) run `key` of a recording of several runs ({"tool", "device", ..., "runs"}),
    with the GPU's name and `fields` at its top."""
    doc = json.loads(path.read_text()) if path.exists() else {"tool": tool, "runs": {}}
    doc.update(fields, device=gpu_name())
    doc["runs"][key] = entry
    path.write_text(json.dumps(doc, indent=indent) + "\n")


def source_page_run(csv_path, kernel: str) -> dict:
    """Nsight Compute's source page (--page source --print-source sass --csv) of some launches of
    `kernel` -> {"sass", "pages", "samples"}: its SASS and the samples per pc and stall reason
    (pc_stalls.NCU_REASONS), summed over the pages."""
    import numpy as np
    from simt_sim.calibrate.pc_stalls import NCU_REASONS
    from simt_sim.calibrate.source_counts import parse_source_page
    pages = [p for p in parse_source_page(Path(csv_path).read_text(), tuple(NCU_REASONS)) if p["kernel"] == kernel]
    if not pages:
        raise SystemExit(f"{csv_path}: no launch of {kernel}")
    return {"sass": pages[0]["sass"], "pages": len(pages), "samples": np.sum([p["counts"] for p in pages], axis=0).tolist()}


def recorded_samples(path, key: str, texts) -> tuple["np.ndarray", list[str]]:
    """Run `key`'s samples [pc, reason] and the reasons from a recording of source_page_run's, once
    its SASS is checked against `texts`, the SASS the model runs."""
    import numpy as np
    from simt_sim.calibrate.pc_stalls import opcode_of
    doc = json.loads(Path(path).read_text())
    run = doc["runs"][key]
    if [opcode_of(t) for t in texts] != [opcode_of(t) for t in run["sass"]]:
        raise SystemExit(f"{key}: the SASS here differs from the recorded one (recompiled?)")
    return np.array(run["samples"], float), doc["reasons"]

