"""Compare the simulator with recorded hardware references (programs/PURPOSE/NAME/reference/h100.json).

Per program: outputs (bit-exact, or within a stated ulp bound where the PTX uses approximate
transcendentals), the per-warp (site, mask) trace, CFE, cycles and per-pipe instruction counts.
For the suite: mean absolute % error and Pearson correlation of cycles, exact mask-trace matches.

A manifest with more_launches is simulated with all its launches (outputs after the last; CFE,
instructions and pipes over all kernels; cycles until the last one finishes) and its cycles are
compared with the recorded `elapsed` time of the whole launch sequence, since ncu times each
launch alone.  The mask trace is the main launch's alone, as recorded.
"""
from __future__ import annotations

import hashlib
import html
import json
import math
from pathlib import Path

import numpy as np

from simt_sim.isa.table import NCU_PIPES
from simt_sim.machine.config import load_config
from simt_sim.errors import InputError, SimError
from simt_sim.frontend.sass_lower import load_kernel
from simt_sim.frontend.manifest import load_manifest
from simt_sim.run.timed import manifest_launch, manifest_launches, simulate, simulate_manifest
from simt_sim.observe.metrics import HW_CYCLES, HW_INSTRUCTIONS, hw_issue_slot_use, issue_slot_use
from simt_sim.observe.progress import steps
from simt_sim.calibrate.masktrace import CAPACITY, decode, site_masks
from simt_sim.calibrate.reference import load_reference
from simt_sim.calibrate.source_counts import FILE_NAME as SOURCE_COUNTS_FILE, differences
from simt_sim.programs import program_dir, program_dirs

APPROX_ULP = 2                       # allowed for outputs of programs using .approx instructions
# The pipes whose counts the H100 repeats exactly.  adu does not: three ncu runs of one program
# differ (w-regroup-tree-base: 16,551 to 16,628), so SASS mode compares adu only by eye.
DETERMINISTIC_PIPES = tuple(p for p in NCU_PIPES if p != "adu")


WORKLOAD_PREFIX = "w-"               # seed workload programs: compared per study (`simt-sim study`)
NOT_IN_SUITE_PREFIXES = ("s-", "t-")   # SASS differential programs (tests/test_sass_diff_programs.py) and
                                      # timing probes (calibrate/probes.py): compared by their own tests


def reference_programs(root: Path, names: list[str] | None = None, gpu: str = "h100",
                       workloads: bool = False) -> list[Path]:
    """Programs with a recorded reference: those named, else the validation suite (and the seed
    workload programs `w-*` too when `workloads`)."""
    if names:
        dirs = [Path(n) if Path(n).is_dir() else program_dir(n, root) for n in names]
        for d in dirs:
            if not (d / "reference" / f"{gpu}.json").exists():
                raise InputError(f"{d}: no recorded reference reference/{gpu}.json (run `simt-sim hw record` "
                                 "on a GPU machine)")
        return dirs
    found = program_dirs(root, needs=f"reference/{gpu}.json")        # by name, as before the purpose folders
    found = [d for d in found if not d.name.startswith(NOT_IN_SUITE_PREFIXES)]
    return [d for d in found if workloads or not d.name.startswith(WORKLOAD_PREFIX)]


def functional_launch(kl, buffers: dict, config):
    """One KernelLaunch run functionally on these buffers (copied in and out)."""
    from simt_sim.run.functional import launch
    return launch(kl.program, kl.grid, kl.block, list(kl.args), buffers, config, dynamic_shared=kl.dynamic_shared)


def functional_main_launch(m, prog, config):
    """A manifest's main launch of `prog` (its PTX or SASS, or the trace variant's), run
    functionally on fresh copies of the manifest's buffers."""
    return functional_launch(manifest_launch(m, prog), {s.name: s.make() for s in m.buffers}, config)


def functional_check(pdir: Path, gpu: str = "h100", isa: str | None = None) -> dict:
    """Outputs and mask trace of a single-launch program against its reference, from functional
    runs (no timing model: outputs and per-warp mask sequences do not depend on it); isa="sass"
    runs the SASS ptxas made of both variants (the trace variant's committed
    kernel.trace.sm_90.cubin is the one the H100 ran)."""
    ref = load_reference(pdir / "reference" / f"{gpu}.json")
    m = load_manifest(str(pdir))
    require_mask_trace(pdir / "reference" / f"{gpu}.json", ref, m)
    if m.more_launches:
        raise InputError(f"{pdir}: several launches need the timing model (validate_program)")
    cfg = load_config(m.config, m.overrides)
    isa = isa or m.isa
    row = {"program": pdir.name, "isa": isa, "mask_trace_match": None}
    for variant in (m.kernel_file, m.trace_kernel_file):      # another program's PTX when shared
        if variant == m.trace_kernel_file and not (variant.exists() and "mask_trace" in ref):
            break
        prog = load_kernel(str(variant), m.kernel, isa)
        res = functional_main_launch(m, prog, cfg.launch_config())
        if variant == m.kernel_file:
            row["outputs_match"], row["notes"] = compare_outputs(res.buffers, ref["outputs"], uses_approx(prog),
                                                                 tuple(m.clock_outputs))
        else:
            row["mask_trace_match"] = compare_mask_trace(res.module_globals, ref, row["notes"])
    return row


def compare_mask_trace(module_globals: dict, ref: dict, notes: list[str]) -> bool | None:
    """The run's per-warp (site, mask) trace against the recorded one; the first difference goes
    into notes.  None when the recorded trace overflowed its buffer (the hardware kept the first
    CAPACITY entries of an arbitrary interleaving of warps, so no warp's sequence is known whole)."""
    if ref.get("trace_count", 0) > CAPACITY:
        notes.append(f"mask trace: the hardware trace overflowed its {CAPACITY:,} entries (not compared)")
        return None
    sim = site_masks(decode(module_globals["simt_trace"], module_globals["simt_trace_count"]))
    hw = {int(w): [tuple(e) for e in entries] for w, entries in ref["mask_trace"].items()}
    if sim != hw:
        notes.append(first_trace_difference(sim, hw))
    return sim == hw


def ulp_distance(a: np.ndarray, b: np.ndarray) -> int:
    """Largest distance in units in the last place between two float arrays (same dtype)."""
    ints = {4: np.int32, 8: np.int64}[a.dtype.itemsize]
    ia = a.view(ints).astype(np.int64)
    ib = b.view(ints).astype(np.int64)
    sign = np.int64(1) << (8 * a.dtype.itemsize - 1)
    ia = np.where(ia < 0, -(ia & (sign - 1)), ia)      # sign-magnitude -> ordered integers
    ib = np.where(ib < 0, -(ib & (sign - 1)), ib)
    return int(np.abs(ia - ib).max()) if ia.size else 0


def uses_approx(program) -> bool:
    return any(".approx" in t for t in program.texts)


def clock_spans(values: np.ndarray) -> list[int]:
    """(start, end) pairs -> end - start for each pair that was written."""
    v = np.ascontiguousarray(values).reshape(-1).view(np.int64)
    return [int(b - a) for a, b in zip(v[0::2], v[1::2]) if a or b]


def compare_outputs(sim: dict[str, np.ndarray], ref: dict, approx: bool,
                    clocks: tuple = ()) -> tuple[bool, list[str]]:
    notes = []
    ok = True
    for name, rec in ref.items():
        if name in clocks:
            continue
        got = np.ascontiguousarray(sim[name]).reshape(-1)
        if "sha256" in rec:                   # a large buffer: its digest and first bytes were kept
            if got.size == rec["size"] and hashlib.sha256(got.tobytes()).hexdigest() == rec["sha256"]:
                continue
            ok = False
            head = np.frombuffer(bytes.fromhex(rec["head_hex"]), dtype=np.dtype(rec["dtype"]))
            notes.append(large_buffer_difference(name, got, head, rec["size"]))
            continue
        want = recorded_array(rec)
        if got.tobytes() == want.tobytes():
            continue
        if approx and got.dtype.kind == "f" and got.shape == want.shape:
            d = ulp_distance(got, want)
            if d <= APPROX_ULP:
                notes.append(f"{name}: within {d} ulp (approximate instructions)")
                continue
        ok = False
        if got.shape != want.shape:
            notes.append(f"{name}: sim has {got.size} elements, hw {want.size}")
            continue
        bad = np.flatnonzero(got.view(f"u{got.dtype.itemsize}") != want.view(f"u{want.dtype.itemsize}"))
        first = int(bad[0])
        notes.append(f"{name}: differs ({len(bad)} elements, first [{first}]: sim {got[first]!r}, hw {want[first]!r})")
    return ok, notes


def large_buffer_difference(name: str, got: np.ndarray, head: np.ndarray, size: int) -> str:
    if got.size != size:
        return f"{name}: sim has {got.size} elements, hw {size}"
    part = got[:head.size]
    bad = np.flatnonzero(part.view(f"u{part.dtype.itemsize}") != head.view(f"u{head.dtype.itemsize}"))
    if bad.size:
        i = int(bad[0])
        return f"{name}: differs (first [{i}]: sim {part[i]!r}, hw {head[i]!r}; digest of {size} elements differs)"
    return f"{name}: differs after the first {head.size} elements (SHA-256 of {size} elements differs)"


def recorded_array(rec: dict) -> np.ndarray:
    """A recorded buffer's values, where they were kept whole (buffers up to 64 KiB, so every clock
    buffer; larger ones keep a digest, which compare_outputs checks)."""
    if "hex" not in rec:
        raise InputError("a buffer over 64 KiB was recorded as a digest only: its values are not in the reference")
    return np.frombuffer(bytes.fromhex(rec["hex"]), dtype=np.dtype(rec["dtype"]))


def median(values):
    v = sorted(x for x in values if x is not None)
    return v[len(v) // 2] if v else None


def validate_program(pdir: Path, gpu: str = "h100", isa: str | None = None) -> dict:
    """One program against its reference; isa="sass" runs the SASS ptxas made, of the kernel and
    of its mask-trace variant (whose trace buffers are module globals, reached through constant
    bank 4)."""
    ref = load_reference(pdir / "reference" / f"{gpu}.json")
    m = load_manifest(str(pdir))
    require_mask_trace(pdir / "reference" / f"{gpu}.json", ref, m)
    isa = isa or m.isa
    cfg = load_config(m.config, m.overrides)
    prog = load_kernel(str(m.kernel_file), m.kernel, isa)
    inputs = {s.name: s.make() for s in m.buffers}
    launches = manifest_launches(m, prog, isa)
    res = simulate(launches, {k: v.copy() for k, v in inputs.items()}, cfg)
    approx = any(uses_approx(kl.program) for kl in launches)
    outputs_ok, notes = compare_outputs(res.buffers, ref["outputs"], approx, tuple(m.clock_outputs))
    row = {"program": pdir.name, "kernel": prog.name, "isa": isa, "outputs_match": outputs_ok, "notes": notes,
           **simulated_fields(m, res)}
    if ref.get("ncu") and len(launches) == 1:
        # ncu's cycles, counts and stalls come from runs with flushed caches at the locked clock;
        # the clock spans and event times stay those of the plain run above
        profiled = simulate(launches, {k: v.copy() for k, v in inputs.items()},
                            cfg.under_profiler(profiled_clock_mhz(ref["ncu"])))
        plain_only = ("clock_spans", "sim_elapsed_cycles")
        row.update({k: v for k, v in simulated_fields(m, profiled).items() if k not in plain_only})
        row["profiled_clock_mhz"] = profiled.config.get("clock_mhz")
    for name in m.clock_outputs:
        hw_s = clock_spans(recorded_array(ref["outputs"][name]).view(np.int64))
        row["clock_spans"][name]["hw"] = max(hw_s) if hw_s else None
    if m.trace_kernel_file.exists() and "mask_trace" in ref:
        tprog = load_kernel(str(m.trace_kernel_file), m.kernel, isa)
        tres = simulate([manifest_launch(m, tprog)], {k: v.copy() for k, v in inputs.items()}, cfg)
        row["mask_trace_match"] = compare_mask_trace(tres.module_globals, ref, row["notes"])
    else:
        row["mask_trace_match"] = None
    ncu = ref.get("ncu") or []
    if ncu:
        cyc = [r["sm__cycles_elapsed.max"] for r in ncu]
        row["hw_cycles"] = median(cyc)
        row["hw_cycles_spread"] = [min(c for c in cyc if c is not None), max(c for c in cyc if c is not None)]
        inst = median([r["smsp__inst_executed.sum"] for r in ncu])
        pred_on = median([r["smsp__thread_inst_executed_pred_on.sum"] for r in ncu])
        row["hw_warp_instructions"] = inst
        row["hw_thread_instructions"] = pred_on
        row["hw_cfe"] = pred_on / (inst * 32) if inst else None
        row["hw_issue_slot_use"] = hw_issue_slot_use({HW_INSTRUCTIONS: inst, HW_CYCLES: row["hw_cycles"]},
                                                     row["active_smsps"])
        row["hw_pipes"] = {p: median([r.get(f"sm__inst_executed_pipe_{p}.sum") for r in ncu]) for p in NCU_PIPES}
        if isa == "sass":          # PTX mode counts PTX instructions: equal counts are not expected
            row["counts_match"] = (row["sim_warp_instructions"] == inst
                                   and row["sim_thread_instructions"] == pred_on)
            row["pipes_match"] = all(row["sim_pipes"][p] == row["hw_pipes"][p] for p in DETERMINISTIC_PIPES)
            row["per_instruction_match"] = per_instruction_match(pdir, row["notes"])
        row["hw_stalls"] = {key.split("stalled_")[1].split("_per_issue")[0]: median([r.get(key) for r in ncu])
                            for key in ncu[0] if key.startswith("smsp__average_warps_issue_stalled_")}
    elapsed = ref.get("elapsed")
    if elapsed:
        row["hw_elapsed_cycles"] = elapsed["cycles"]
        row["elapsed_error_pct"] = 100.0 * (row["sim_elapsed_cycles"] - elapsed["cycles"]) / elapsed["cycles"]
    sim_cycles = row["sim_cycles"]
    if len(launches) > 1:         # ncu ran each launch alone: the sequence's time is the elapsed one
        row["hw_cycles_ncu_sum"] = row.pop("hw_cycles", None)
        row["hw_cycles"] = elapsed["cycles"] if elapsed else None
        sim_cycles = row["sim_elapsed_cycles"]
    if row.get("hw_cycles"):
        row["cycle_error_pct"] = 100.0 * (sim_cycles - row["hw_cycles"]) / row["hw_cycles"]
    row["launch_overhead"] = (cfg.for_sass() if isa == "sass" else cfg).get("sm.kernel_launch_latency")
    row["provenance"] = ref.get("provenance", {})
    return row


def require_mask_trace(path: Path, ref: dict, m) -> None:
    """A program with a mask-trace variant has its recorded trace: without it the comparison would
    leave the masks out silently."""
    if m.trace_kernel_file.exists() and "mask_trace" not in ref:
        raise InputError(f"{path}: field mask_trace: missing (the program has a trace variant, "
                         f"{m.trace_kernel_file.name}, whose recorded trace validate compares)")


def profiled_clock_mhz(ncu: list[dict]) -> float | None:
    """The SM clock of ncu's runs when the reference recorded it (gpc__cycles_elapsed.avg.per_second,
    references from 2026-11-25 on; ncu reports a locked 1590 MHz as 1583-1587), else None: the
    config's host.profiler_clock_mhz."""
    hz = median([r.get("gpc__cycles_elapsed.avg.per_second") for r in ncu])
    return round(hz / 1e6) if hz else None


def simulate_as_profiled(pdir: Path, overrides: tuple[str, ...] = (), warm: bool = False):
    """The manifest's launches run timed as SASS under Nsight Compute's conditions, as recorded
    (caches flushed, or with `warm` the host's copies in L2 as in a plain launch; the clock of the
    program's profiled references), with config `overrides`: a SimResult."""
    m = load_manifest(str(pdir))
    ref = pdir / "reference" / "h100.json"
    ncu = load_reference(ref).get("ncu") if ref.exists() else None
    cfg = load_config(m.config, [*m.overrides, *overrides]).under_profiler(profiled_clock_mhz(ncu) if ncu else None)
    if warm:
        cfg = cfg.with_overrides(["host.caches_flushed=false"])
    return simulate_manifest(m, isa="sass", cfg=cfg)


def simulated_elapsed(res) -> int:
    """What CUDA events around a simulated launch sequence (SimResult) would measure: the cycles
    until its last stream's end is joined to the stop event, and the config's `host.event_overhead`
    (t-launch-1: the events' time beyond a kernel's own, one stream's join included).  Each further
    stream's join takes `host.stream_join` cycles, one at a time in the order the streams end."""
    cfg = res.config
    ends = {}
    for kl, k in zip(res.launches, res.kernels):
        ends[kl.stream] = max(ends.get(kl.stream, 0), k["end_cycle"])
    joined = res.cycles
    if len(ends) > 1:
        order = sorted(ends.values())
        joined = order[0]
        for end in order[1:]:
            joined = max(joined + cfg.get("host.stream_join"), end)
    return joined + cfg.get("host.event_overhead")


def simulated_fields(m, res) -> dict:
    """The simulator's half of a comparison row: cycles until the last launch ends, CFE,
    instructions, issue-slot use and pipes over all launches, the longest clock span per clock
    buffer (its "hw" filled in by the caller)."""
    k = kernels_together(res.kernels, res.cycles)
    spans = {}
    for name in m.clock_outputs:
        sim_s = clock_spans(res.buffers[name])
        spans[name] = {"sim": max(sim_s) if sim_s else None, "hw": None}
    return {"launches": len(res.launches), "sim_cycles": res.cycles,
            "sim_elapsed_cycles": simulated_elapsed(res), "sim_cfe": k["cfe"],
            "sim_warp_instructions": k["warp_instructions"], "sim_thread_instructions": k.get("thread_instructions"),
            "active_smsps": k["active_smsps"], "sim_issue_slot_use": k["issue_slot_use"],
            "sim_pipes": dict(k["pipe_instructions"]),
            "clock_spans": spans}


def kernels_together(kernels: list[dict], cycles: int) -> dict:
    """Per-kernel metrics of one run as one: instructions and pipes added, CFE over all warp-
    instructions (each kernel's CFE weighted by its warp-instructions), issue-slot use over the
    whole run on the most sub-partitions any launch used."""
    if len(kernels) == 1:
        return kernels[0]
    insts = sum(k["warp_instructions"] for k in kernels)
    units: dict[str, int] = {}
    pipes: dict[str, int] = {}
    for k in kernels:
        for u, n in k["unit_instructions"].items():
            units[u] = units.get(u, 0) + n
        for p, n in k["pipe_instructions"].items():
            pipes[p] = pipes.get(p, 0) + n
    cfe = sum(k["cfe"] * k["warp_instructions"] for k in kernels) / insts if insts else 0.0
    smsps = max(k["active_smsps"] for k in kernels)
    return {"cfe": cfe, "warp_instructions": insts, "unit_instructions": units, "pipe_instructions": pipes,
            "active_smsps": smsps,
            "thread_instructions": sum(k.get("thread_instructions", 0) for k in kernels),
            "issue_slot_use": issue_slot_use(insts, cycles, smsps)}


def first_trace_difference(sim: dict, hw: dict) -> str:
    for w in sorted(set(sim) | set(hw)):
        a, b = sim.get(w, []), hw.get(w, [])
        if a != b:
            for i, (x, y) in enumerate(zip(a, b)):
                if x != y:
                    return (f"mask trace: warp {w} entry {i}: sim site {x[0]} mask {x[1]:#010x}, "
                            f"hw site {y[0]} mask {y[1]:#010x}")
            return f"mask trace: warp {w}: sim has {len(a)} entries, hw {len(b)}"
    return "mask trace differs"


def pearson(xs: list[float], ys: list[float]) -> float | None:
    if len(xs) < 2:
        return None
    x, y = np.array(xs, float), np.array(ys, float)
    if x.std() == 0 or y.std() == 0:
        return None
    return float(np.corrcoef(x, y)[0, 1])


def per_instruction_match(pdir: Path, notes: list[str]) -> bool | None:
    """Whether every SASS instruction's counts equal Nsight Compute's source-page counts
    (calibrate/source_counts.py); None where none were recorded.  The first difference goes into
    notes."""
    if not (pdir / "reference" / SOURCE_COUNTS_FILE).exists():
        return None
    diff = differences(pdir)
    if diff:
        notes.append(f"per-instruction counts: {diff[0]} ({len(diff)} instructions differ)")
    return not diff


def summarize(rows: list[dict]) -> dict:
    timed = [r for r in rows if r.get("cycle_error_pct") is not None]
    traced = [r for r in rows if r["mask_trace_match"] is not None]
    counted = [r for r in rows if r.get("counts_match") is not None]
    return {
        "programs": len(rows),
        "outputs_match": sum(r["outputs_match"] for r in rows),
        "counted": len(counted),
        "counts_match": sum(r["counts_match"] for r in counted),
        "pipes_match": sum(r["pipes_match"] for r in counted),
        "per_instruction": sum(r.get("per_instruction_match") is not None for r in counted),
        "per_instruction_match": sum(bool(r.get("per_instruction_match")) for r in counted),
        "mask_traces": len(traced),
        "mask_traces_match": sum(bool(r["mask_trace_match"]) for r in traced),
        "cycle_mae_pct": float(np.mean([abs(r["cycle_error_pct"]) for r in timed])) if timed else None,
        "cycle_pearson": pearson([r["sim_cycles"] for r in timed], [r["hw_cycles"] for r in timed]),
        "cycle_pearson_log": pearson([math.log(r["sim_cycles"]) for r in timed],
                                     [math.log(r["hw_cycles"]) for r in timed]),
        # the same error without the fixed launch overhead (most suite kernels are short)
        "cycle_mae_pct_without_launch": float(np.mean([
            abs(r["sim_cycles"] - r["hw_cycles"]) / max(r["hw_cycles"] - r["launch_overhead"], 1) * 100
            for r in timed])) if timed else None,
    }


def format_table(rows: list[dict], summary: dict) -> str:
    head = (f"{'program':<24} {'out':>4} {'masks':>5} {'CFE sim':>8} {'CFE hw':>7} {'cycles sim':>10} "
            f"{'cycles hw':>10} {'err %':>7} {'counts':>6} {'pipes':>5}  pipes sim/hw ({' '.join(SHOWN_PIPES)})")
    lines = [head, "-" * len(head)]
    for r in rows:
        masks = "-" if r["mask_trace_match"] is None else ("ok" if r["mask_trace_match"] else "DIFF")
        hw_cfe = f"{r['hw_cfe']:.4f}" if r.get("hw_cfe") is not None else "-"
        hw_c = f"{r['hw_cycles']:.0f}" if r.get("hw_cycles") else "-"
        err = f"{r['cycle_error_pct']:+.1f}" if r.get("cycle_error_pct") is not None else "-"
        pipes = " ".join(f"{r['sim_pipes'].get(p, 0)}/{_n(r.get('hw_pipes', {}).get(p))}" for p in SHOWN_PIPES)
        lines.append(f"{r['program']:<24} {'ok' if r['outputs_match'] else 'DIFF':>4} {masks:>5} "
                     f"{r['sim_cfe']:>8.4f} {hw_cfe:>7} {r['sim_cycles']:>10} {hw_c:>10} {err:>7} "
                     f"{_verdict(r.get('counts_match')):>6} {_verdict(r.get('pipes_match')):>5}  {pipes}")
        for name, sp in r.get("clock_spans", {}).items():
            lines.append(f"{'':<24}   clock span {name} (longest start..end): sim {sp['sim']}, hw {sp['hw']}")
        if r.get("hw_elapsed_cycles") is not None:
            lines.append(f"{'':<24}   elapsed ({r['launches']} launch{'es' if r['launches'] > 1 else ''}, CUDA events): "
                         f"sim {r['sim_elapsed_cycles']}, hw {r['hw_elapsed_cycles']} ({r['elapsed_error_pct']:+.1f}%)")
        for n in r["notes"]:
            lines.append(f"{'':<24}   note: {n}")
    s = summary
    lines.append("")
    lines.append(f"outputs identical: {s['outputs_match']}/{s['programs']}; mask traces identical: "
                 f"{s['mask_traces_match']}/{s['mask_traces']}; cycle MAE: "
                 + (f"{s['cycle_mae_pct']:.1f}%" if s["cycle_mae_pct"] is not None else "-")
                 + "; Pearson r (cycles): " + (f"{s['cycle_pearson']:.3f}" if s["cycle_pearson"] is not None else "-")
                 + " (log cycles: " + (f"{s['cycle_pearson_log']:.3f}" if s["cycle_pearson_log"] is not None else "-")
                 + ")")
    if s.get("counted"):
        lines.append(f"SASS counts identical to ncu's (warp- and pred-on thread-instructions): "
                     f"{s['counts_match']}/{s['counted']}; per-pipe counts identical "
                     f"({', '.join(DETERMINISTIC_PIPES)}): {s['pipes_match']}/{s['counted']}")
        if s.get("per_instruction"):
            lines.append(f"every SASS instruction's counts identical to ncu's source counters: "
                         f"{s['per_instruction_match']}/{s['per_instruction']}")
    if s.get("cycle_mae_pct_without_launch") is not None:
        lines.append(f"cycle MAE relative to the cycles after the launch overhead: "
                     f"{s['cycle_mae_pct_without_launch']:.1f}%")
    return "\n".join(lines)


SHOWN_PIPES = ("fma", "alu", "fp64", "xu", "tensor", "cbu", "lsu", "uniform")


def _verdict(match: bool | None) -> str:
    return "-" if match is None else ("ok" if match else "DIFF")


def _n(v) -> str:
    return "-" if v is None else f"{v:.0f}"


def html_report(rows: list[dict], summary: dict) -> str:
    cells = []
    for r in rows:
        cls = "bad" if not r["outputs_match"] or r["mask_trace_match"] is False else ""
        cells.append(
            f"<tr class='{cls}'><td>{html.escape(r['program'])}</td><td>{'ok' if r['outputs_match'] else 'DIFF'}</td>"
            f"<td>{'-' if r['mask_trace_match'] is None else ('ok' if r['mask_trace_match'] else 'DIFF')}</td>"
            f"<td>{r['sim_cfe']:.4f}</td><td>{'-' if r.get('hw_cfe') is None else format(r['hw_cfe'], '.4f')}</td>"
            f"<td>{r['sim_cycles']}</td><td>{_n(r.get('hw_cycles'))}</td>"
            f"<td>{'-' if r.get('cycle_error_pct') is None else format(r['cycle_error_pct'], '+.1f')}</td>"
            f"<td>{html.escape('; '.join(r['notes']))}</td></tr>")
    return ("<!doctype html><meta charset='utf-8'><title>simt-sim validation</title>"
            "<style>body{font-family:sans-serif}td,th{padding:2px 8px;border-bottom:1px solid #ddd}"
            ".bad{background:#fdd}</style><h1>simt-sim vs hardware</h1>"
            f"<p>{html.escape(json.dumps(summary))}</p><table><tr><th>program</th><th>outputs</th><th>masks</th>"
            "<th>CFE sim</th><th>CFE hw</th><th>cycles sim</th><th>cycles hw</th><th>error %</th><th>notes</th></tr>"
            + "".join(cells) + "</table>")


def run_validation(root: Path, names: list[str] | None = None, gpu: str = "h100",
                   workloads: bool = False, isa: str | None = None,
                   errors: list | None = None, progress=None) -> tuple[list[dict], dict]:
    """Every program against its reference.  With an `errors` list, a program that cannot be
    compared (a damaged or missing reference, a manifest or kernel in error, a runtime fault) is
    appended to it as (program, SimError) and the others go on; without one the first error raises.
    progress: told of each finished program (observe/progress.steps)."""
    if names and errors is not None:
        dirs = []
        for name in names:
            try:
                dirs += reference_programs(root, [name], gpu, workloads)
            except InputError as e:
                errors.append((name, e))
    else:
        dirs = reference_programs(root, names, gpu, workloads)
    rows = []
    for d in steps(dirs, progress, lambda d: d.name):
        try:
            rows.append(validate_program(d, gpu, isa))
        except SimError as e:
            if errors is None:
                raise
            errors.append((d.name, e))
    if not rows and not errors:
        raise InputError("no recorded references found under programs/*/*/reference/ (run `simt-sim hw record`)")
    return rows, summarize(rows)
