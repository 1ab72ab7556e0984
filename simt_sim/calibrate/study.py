"""Workload studies: `studies/NAME.yaml` lists one seed workload's variants (each a program in
programs/); a study simulates every variant, reads its recorded H100 reference, and tabulates
per variant the cycles (whole kernel and longest block span), CFE, issue-slot use and the
speed-up over its base, simulated against measured, with the difference in percentage points.

    simt-sim study                 # list the studies
    simt-sim study ilp --csv ilp.csv --plot ilp.png
"""
from __future__ import annotations

import csv
import html
import io
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from simt_sim.errors import InputError
from simt_sim.frontend.manifest import load_manifest
from simt_sim.frontend.yamlschema import Field, error_at, load_yaml_nodes, validate
from simt_sim.calibrate.compare import simulated_fields, validate_program
from simt_sim.observe.progress import steps
from simt_sim.run.timed import simulate_manifest
from simt_sim.programs import program_dir

EFFECT_BOUND_PP = 5.0          # the issue's target: a simulated speed-up within 5 pp of the H100's
SPAN_BOUND_PCT = 10.0          # and every block span within 10% of the H100's

SCHEMA = {
    "title": Field(str, required=True, doc="one line: seed and what is compared"),
    "seed": Field(str, doc="seed document number, e.g. '002'"),
    "description": Field(str, doc="what is compared and what the paper claims"),
    "variants": Field(list, required=True, doc="[{name, program, base?, note?, group?}] in table order"),
    "measure": Field(str, doc="'ncu' (default: Nsight Compute sm__cycles_elapsed.max of the kernel) or "
                              "'elapsed' (CUDA-event time of the whole launch sequence, in cycles)"),
    "overlap": Field(dict, doc="{t_cd: VARIANT, t_tc: VARIANT}: the two parts run alone; also report each "
                               "other variant's overlap rate (T_cd + T_tc - T) / (T_cd + T_tc)"),
}
VARIANT_SCHEMA = {
    "name": Field(str, required=True), "program": Field(str, required=True),
    "base": Field(str, doc="variant whose cycles / this variant's cycles is the speed-up (default: the first)"),
    "note": Field(str), "group": Field(str),
}


@dataclass
class Variant:
    name: str
    program: str
    base: str
    note: str = ""
    group: str = ""


@dataclass
class Study:
    name: str
    path: Path
    title: str
    seed: str
    description: str
    variants: list[Variant]
    measure: str = "ncu"
    overlap: dict = field(default_factory=dict)


def studies_dir(root: Path) -> Path:
    return root / "studies"


def list_studies(root: Path) -> list[Study]:
    return [load_study(p) for p in sorted(studies_dir(root).glob("*.yaml"))]


def find_study(root: Path, name: str) -> Study:
    path = Path(name) if name.endswith(".yaml") else studies_dir(root) / f"{name}.yaml"
    if not path.exists():
        known = ", ".join(p.stem for p in sorted(studies_dir(root).glob("*.yaml"))) or "none"
        raise InputError(f"no study {name!r} (known: {known}; `simt-sim study` lists them)")
    return load_study(path)


def load_study(path: Path) -> Study:
    data, root = load_yaml_nodes(str(path))
    validate(data, SCHEMA, str(path), root)
    root_dir = path.resolve().parent.parent                    # studies/ sits beside programs/
    variants: list[Variant] = []
    names: set[str] = set()
    for i, v in enumerate(data["variants"]):
        validate(v, VARIANT_SCHEMA, str(path), root, ("variants", i))
        if v["name"] in names:
            raise error_at(str(path), root, ("variants", i, "name"), f"variant {v['name']!r} appears twice")
        if not (program_dir(v["program"], root_dir) / "manifest.yaml").exists():
            raise error_at(str(path), root, ("variants", i, "program"),
                           f"program {v['program']!r} not found under {root_dir / 'programs'}")
        names.add(v["name"])
        variants.append(Variant(v["name"], v["program"], v.get("base", data["variants"][0]["name"]),
                                v.get("note", ""), v.get("group", "")))
    if not variants:
        raise error_at(str(path), root, ("variants",), "a study needs at least one variant")
    for i, v in enumerate(variants):
        if v.base not in names:
            raise error_at(str(path), root, ("variants", i, "base"), f"base {v.base!r} is not a variant")
    measure = data.get("measure", "ncu")
    if measure not in ("ncu", "elapsed"):
        raise error_at(str(path), root, ("measure",), "must be 'ncu' or 'elapsed'")
    overlap = data.get("overlap") or {}
    for key in ("t_cd", "t_tc") if overlap else ():
        if overlap.get(key) not in names:
            raise error_at(str(path), root, ("overlap",), f"overlap.{key} must name one of the variants "
                           f"({', '.join(sorted(names))}), found {overlap.get(key)!r}")
    return Study(path.stem, path, data["title"], str(data.get("seed", "")), data.get("description", ""),
                 variants, measure, overlap)


def measured_cycles(row: dict, measure: str) -> float | None:
    """The H100's cycles of a validate_program row: ncu's kernel cycles, or the CUDA-event time of
    the whole launch sequence."""
    return row.get("hw_elapsed_cycles" if measure == "elapsed" else "hw_cycles")


def variant_row(root: Path, study: Study, v: Variant, gpu: str, isa: str | None = None) -> dict:
    pdir = program_dir(v.program, root)
    recorded = (pdir / "reference" / f"{gpu}.json").exists()
    # not recorded yet: the simulated half of the row
    row = validate_program(pdir, gpu, isa) if recorded else simulated_only(pdir, isa)
    hw_cycles = measured_cycles(row, study.measure)
    sim_span = max((s["sim"] or 0 for s in row["clock_spans"].values()), default=None) or None
    hw_span = max((s["hw"] or 0 for s in row["clock_spans"].values()), default=None) or None
    hw_insts = row.get("hw_warp_instructions")
    return {
        "variant": v.name, "program": v.program, "base": v.base, "group": v.group, "note": v.note, "isa": row["isa"],
        "outputs": row["outputs_match"],
        "sim_cycles": row["sim_elapsed_cycles" if study.measure == "elapsed" else "sim_cycles"],
        "hw_cycles": hw_cycles,
        "sim_block_span": sim_span, "hw_block_span": hw_span,
        "sim_cfe": row["sim_cfe"], "hw_cfe": row.get("hw_cfe"),
        "sim_warp_instructions": row["sim_warp_instructions"], "hw_warp_instructions": hw_insts,
        "active_smsps": row["active_smsps"],
        "sim_issue_slot_use": row["sim_issue_slot_use"], "hw_issue_slot_use": row.get("hw_issue_slot_use"),
        "notes": row["notes"],
    }


def simulated_only(pdir: Path, isa: str | None = None) -> dict:
    """The simulator's half of a validate_program row, for a program with no reference yet."""
    m = load_manifest(str(pdir))
    return {**simulated_fields(m, simulate_manifest(m, isa=isa)), "notes": ["no H100 reference recorded"],
            "outputs_match": None, "isa": isa or m.isa}


def overlap_rate(t_cd: float, t_tc: float, t_fuse: float) -> float:
    """(T_cd + T_tc - T_fuse) / (T_cd + T_tc) for three positive, finite times (any one unit)."""
    for name, value in (("t_cd", t_cd), ("t_tc", t_tc), ("t_fuse", t_fuse)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or value <= 0:
            raise InputError(f"overlap_rate: {name} must be a positive finite time, found {value!r}")
    return (t_cd + t_tc - t_fuse) / (t_cd + t_tc)


def add_overlaps(rows: list[dict], cd: dict, tc: dict) -> None:
    """Each row's simulated and measured overlap rate against the two parts' rows cd and tc (their
    `sim_cycles` / `hw_cycles`); the parts themselves are marked `part` and get none."""
    for r in rows:
        r["part"] = r is cd or r is tc
        for side in ("sim", "hw"):
            t = (cd[f"{side}_cycles"], tc[f"{side}_cycles"], r[f"{side}_cycles"])
            r[f"{side}_overlap"] = None if r["part"] or not all(t) else overlap_rate(*t)


def add_effects(rows: list[dict], overlap: dict) -> None:
    """Speed-up over each row's base (base cycles / cycles), simulated and measured, and their
    difference in percentage points; overlap rates where the study names its two parts."""
    by_name = {r["variant"]: r for r in rows}
    for r in rows:
        b = by_name[r["base"]]
        r["sim_speedup"] = b["sim_cycles"] / r["sim_cycles"]
        r["hw_speedup"] = b["hw_cycles"] / r["hw_cycles"] if b["hw_cycles"] and r["hw_cycles"] else None
        r["speedup_diff_pp"] = (100 * (r["sim_speedup"] - r["hw_speedup"]) if r["hw_speedup"] is not None
                                else None)
    if overlap:
        add_overlaps(rows, by_name[overlap["t_cd"]], by_name[overlap["t_tc"]])


def effect_rows(rows: list[dict]) -> list[dict]:
    """The rows that are an optimisation's effect: a variant against another as its base, with a
    measured speed-up (a fusion study's parts, run alone, are not effects)."""
    return [r for r in rows if r["variant"] != r["base"] and r["speedup_diff_pp"] is not None
            and not r.get("part")]


def same_sign(r: dict) -> bool:
    """Whether the simulated effect goes the H100's way (both speed-ups above 1, both below, or equal)."""
    return (r["sim_speedup"] - 1) * (r["hw_speedup"] - 1) > 0 or r["sim_speedup"] == r["hw_speedup"]


def span_error_pct(r: dict) -> float | None:
    """The longest block span's error against the H100's, in %, where both are known."""
    if not r.get("sim_block_span") or not r.get("hw_block_span"):
        return None
    return 100 * (r["sim_block_span"] - r["hw_block_span"]) / r["hw_block_span"]


def summarize(rows: list[dict]) -> dict:
    effects = effect_rows(rows)
    spans = [e for e in (span_error_pct(r) for r in rows) if e is not None]
    return {"variants": len(rows), "outputs_identical": sum(r["outputs"] is True for r in rows),
            "recorded": sum(r["outputs"] is not None for r in rows), "effects": len(effects),
            "effects_same_sign": sum(same_sign(r) for r in effects),
            "effects_within_5pp": sum(abs(r["speedup_diff_pp"]) <= EFFECT_BOUND_PP for r in effects),
            "block_spans": len(spans), "block_spans_within_10pct": sum(abs(e) <= SPAN_BOUND_PCT for e in spans),
            "block_span_mae_pct": float(np.mean(np.abs(spans))) if spans else None,
            "cycle_mae_pct": (float(np.mean([abs(r["sim_cycles"] - r["hw_cycles"]) / r["hw_cycles"] * 100
                                             for r in rows if r["hw_cycles"]]))
                              if any(r["hw_cycles"] for r in rows) else None)}


def run_study(root: Path, study: Study, gpu: str = "h100", isa: str | None = None, progress=None) -> dict:
    """Every variant against its reference (isa="sass": run as the SASS ptxas makes, so that the
    CFE column is Nsight Compute's own metric over the same instructions); progress: told of each
    finished variant (observe/progress.steps)."""
    rows = [variant_row(root, study, v, gpu, isa) for v in steps(study.variants, progress, lambda v: v.name)]
    add_effects(rows, study.overlap)
    modes = {r["isa"] for r in rows}
    return {"study": study.name, "title": study.title, "seed": study.seed, "description": study.description,
            "measure": study.measure, "isa": modes.pop() if len(modes) == 1 else "mixed", "rows": rows, "summary": summarize(rows)}


def history_pictures(root: Path, study: Study, out_dir: Path, max_warps: int = 8, progress=None) -> list[Path]:
    """For every variant that has a base other than itself: its execution history and its base's
    as two panels on one cycle axis (the first max_warps warps), out_dir/VARIANT.png (progress:
    told of each picture drawn, observe/progress.steps)."""
    from simt_sim.observe.plots import side_by_side_histories
    out_dir.mkdir(parents=True, exist_ok=True)
    runs: dict[str, object] = {}

    def run(v: Variant):
        if v.name not in runs:
            runs[v.name] = simulate_manifest(load_manifest(str(program_dir(v.program, root))), record_trace=True)
        return runs[v.name]
    by_name = {v.name: v for v in study.variants}
    paths = []
    for v in steps([v for v in study.variants if v.base != v.name], progress, lambda v: f"{v.name}.png"):
        base = by_name[v.base]
        path = out_dir / (re.sub(r"[^A-Za-z0-9._-]+", "-", v.name).strip("-") + ".png")
        side_by_side_histories([run(base), run(v)], [f"{base.name} (base)", v.name], path, max_warps=max_warps,
                               title=f"{study.name}: {v.name} against {base.name}")
        paths.append(path)
    return paths


# --- formats ---------------------------------------------------------------------------------

COLUMNS = [("variant", "variant", "{}"), ("outputs", "out", "{}"), ("sim_cycles", "cyc sim", "{:.0f}"),
           ("hw_cycles", "cyc hw", "{:.0f}"), ("sim_block_span", "span sim", "{:.0f}"),
           ("hw_block_span", "span hw", "{:.0f}"), ("sim_cfe", "CFE sim", "{:.3f}"), ("hw_cfe", "CFE hw", "{:.3f}"),
           ("sim_issue_slot_use", "slots sim", "{:.3f}"), ("hw_issue_slot_use", "slots hw", "{:.3f}"),
           ("sim_speedup", "x sim", "{:.3f}"), ("hw_speedup", "x hw", "{:.3f}"),
           ("speedup_diff_pp", "diff pp", "{:+.1f}")]
OVERLAP_COLUMNS = [("sim_overlap", "ovl sim", "{:.3f}"), ("hw_overlap", "ovl hw", "{:.3f}")]


def columns(doc: dict) -> list[tuple]:
    return COLUMNS + (OVERLAP_COLUMNS if any("sim_overlap" in r for r in doc["rows"]) else [])


def cell(row: dict, key: str, fmt: str) -> str:
    v = row.get(key)
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if key == "outputs":
        return "ok" if v else "DIFF"
    return fmt.format(v)


def format_table(doc: dict) -> str:
    cols = columns(doc)
    cells = [[cell(r, k, f) for k, _, f in cols] for r in doc["rows"]]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, (_, h, _) in enumerate(cols)]
    line = lambda vals: "  ".join(v.ljust(w) if i == 0 else v.rjust(w)
                                   for i, (v, w) in enumerate(zip(vals, widths)))
    mode = " (run as SASS: CFE over the same instructions as Nsight Compute's)" if doc.get("isa") == "sass" else ""
    out = [f"{doc['study']}: {doc['title']}{mode}", line([h for _, h, _ in cols]),
           "-" * (sum(widths) + 2 * len(widths))]
    out += [line(c) for c in cells]
    s = doc["summary"]
    out.append("")
    out.append(f"speed-up = base cycles / cycles (base per variant in studies/{doc['study']}.yaml); measured: "
               + ("CUDA-event time of the launch sequence" if doc["measure"] == "elapsed"
                  else "Nsight Compute sm__cycles_elapsed.max"))
    if s["recorded"]:
        out.append(f"outputs identical: {s['outputs_identical']}/{s['recorded']}; effects with the H100's sign: "
                   f"{s['effects_same_sign']}/{s['effects']}; within {EFFECT_BOUND_PP:.0f} pp: "
                   f"{s['effects_within_5pp']}/{s['effects']}; cycle MAE {s['cycle_mae_pct']:.1f}%")
        if s["block_spans"]:
            out.append(f"block spans within {SPAN_BOUND_PCT:.0f}%: {s['block_spans_within_10pct']}/{s['block_spans']}"
                       f" (mean absolute error {s['block_span_mae_pct']:.1f}%)")
    else:
        out.append("no H100 references recorded yet: simulated columns only")
    return "\n".join(out)


def to_csv(doc: dict) -> str:
    keys = [k for k, _, _ in columns(doc)] + ["program", "base", "sim_warp_instructions", "hw_warp_instructions"]
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=keys, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in doc["rows"]:
        w.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in keys})
    return buf.getvalue()


def to_html(doc: dict, picture_files: list[str] = ()) -> str:
    cols = columns(doc)
    head = "".join(f"<th>{html.escape(h)}</th>" for _, h, _ in cols)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(cell(r, k, f))}</td>" for k, _, f in cols) + "</tr>"
                   for r in doc["rows"])
    pics = "".join(f"<p><img src='{html.escape(p)}' alt='{html.escape(p)}'></p>" for p in picture_files)
    return ("<!doctype html><meta charset='utf-8'>"
            f"<title>simt-sim study {html.escape(doc['study'])}</title>"
            "<style>body{font-family:sans-serif}td,th{padding:2px 8px;border-bottom:1px solid #ddd;"
            "text-align:right}td:first-child{text-align:left}</style>"
            f"<h1>{html.escape(doc['title'])}</h1><p>{html.escape(doc['description'])}</p>"
            f"<table><tr>{head}</tr>{body}</table><p>{html.escape(json.dumps(doc['summary']))}</p>{pics}")
