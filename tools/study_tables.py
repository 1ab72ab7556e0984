#!/usr/bin/env python3
"""Write every study's table into docs/workloads.md, between the markers
`<!-- study:NAME -->` and `<!-- /study:NAME -->` (a study without markers gets them appended
under "## Study tables").  Each table is `simt-sim study NAME`'s text output.  Every study's
full result goes to docs/workloads.json, and the summary of all effects (between
`<!-- summary -->` and `<!-- /summary -->`) is rebuilt from it.

    python tools/study_tables.py              # all studies
    python tools/study_tables.py ilp cslow    # only these
    python tools/study_tables.py --plots docs/img   # also each study's speed-up plot as PNG
    python tools/study_tables.py --isa sass   # SASS mode: docs/workloads-sass.md and .json

Without --isa the studies run in PTX mode (`--isa ptx` on every variant); SASS is `simt-sim
study`'s own default for nvcc-compiled programs.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from simt_sim.calibrate import study as S  # noqa: E402
from simt_sim.errors import InputError  # noqa: E402

DOC = ROOT / "docs" / "workloads.md"
RESULTS = ROOT / "docs" / "workloads.json"
SASS_DOC = ROOT / "docs" / "workloads-sass.md"          # the same studies run as SASS (issue 13)
SASS_RESULTS = ROOT / "docs" / "workloads-sass.json"
CFE_BOUND_PP = 2.0             # the target for CFE


def summary_block(results: dict) -> str:
    """Every effect of every study (variant against its base), simulated against measured."""
    head = (f"{'study':<20} {'variant':<30} {'x sim':>6} {'x hw':>6} {'diff pp':>8} {'sign':>5} "
            f"{'CFE sim':>8} {'CFE hw':>7}")
    lines = [head, "-" * len(head)]
    totals = dict.fromkeys(("outputs_identical", "recorded", "effects", "effects_same_sign",
                            "effects_within_5pp", "block_spans", "block_spans_within_10pct"), 0)
    cfe_n = cfe_ok = ovl_n = ovl_ok = 0
    for name, doc in results.items():
        for key, n in S.summarize(doc["rows"]).items():
            if key in totals:
                totals[key] += n
        for r in doc["rows"]:
            if r["hw_cfe"] is not None:
                cfe_n += 1
                cfe_ok += abs(r["sim_cfe"] - r["hw_cfe"]) * 100 <= CFE_BOUND_PP
            if r.get("sim_overlap") is not None and r.get("hw_overlap") is not None:
                ovl_n += 1
                ovl_ok += abs(r["sim_overlap"] - r["hw_overlap"]) * 100 <= S.EFFECT_BOUND_PP
        for r in S.effect_rows(doc["rows"]):
            lines.append(f"{name:<20} {r['variant'][:30]:<30} {r['sim_speedup']:>6.3f} {r['hw_speedup']:>6.3f} "
                         f"{r['speedup_diff_pp']:>+8.1f} {'yes' if S.same_sign(r) else 'NO':>5} "
                         f"{r['sim_cfe']:>8.3f} {r['hw_cfe']:>7.3f}")
    t = totals
    lines += ["", f"outputs identical to the H100: {t['outputs_identical']}/{t['recorded']} variants; effects with "
                  f"the H100's sign: {t['effects_same_sign']}/{t['effects']}; within {S.EFFECT_BOUND_PP:.0f} pp: "
                  f"{t['effects_within_5pp']}/{t['effects']}; CFE within {CFE_BOUND_PP:.0f} pp: {cfe_ok}/{cfe_n} "
                  f"variants; overlap rates within {S.EFFECT_BOUND_PP:.0f} pp: {ovl_ok}/{ovl_n}; longest block "
                  f"spans within {S.SPAN_BOUND_PCT:.0f}%: {t['block_spans_within_10pct']}/{t['block_spans']} variants"]
    return "<!-- summary -->\n```\n" + "\n".join(lines) + "\n```\n<!-- /summary -->"


def replace_block(text: str, name: str, body: str, isa: str) -> str:
    start, end = f"<!-- study:{name} -->", f"<!-- /study:{name} -->"
    command = f"simt-sim study {name} --isa {isa}"
    block = f"{start}\n```\n$ {command}\n{body}\n```\n{end}"
    pattern = re.compile(re.escape(start) + ".*?" + re.escape(end), re.S)
    if pattern.search(text):
        return pattern.sub(lambda _: block, text)
    if "## Study tables" not in text:
        text = text.rstrip() + "\n\n## Study tables\n"
    return text.rstrip() + f"\n\n{block}\n"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("studies", nargs="*")
    ap.add_argument("--summary-only", action="store_true",
                    help="rebuild the summary from docs/workloads.json without running the studies")
    ap.add_argument("--plots", metavar="DIR", help="also write DIR/study-NAME.png (speed-ups, sim vs H100)")
    ap.add_argument("--isa", choices=["ptx", "sass"], default="ptx",
                    help="sass: run the studies as SASS, into docs/workloads-sass.md / .json (default: PTX, "
                         "docs/workloads.md / .json)")
    ns = ap.parse_args()
    doc_path, results_path = (SASS_DOC, SASS_RESULTS) if ns.isa == "sass" else (DOC, RESULTS)
    names = [] if ns.summary_only else ns.studies or [s.name for s in S.list_studies(ROOT)]
    text = doc_path.read_text()
    results = json.loads(results_path.read_text()) if results_path.exists() else {}
    for name in names:
        try:
            doc = S.run_study(ROOT, S.find_study(ROOT, name), isa=ns.isa)
        except InputError as e:          # e.g. a teaching config's 4-lane warps cannot run SASS
            text = replace_block(text, name, f"not run: {e}", ns.isa)
            results.pop(name, None)
            print(f"{name}: not run ({e})", file=sys.stderr)
            continue
        results[name] = doc
        results_path.write_text(json.dumps(results, indent=1, sort_keys=True, default=float) + "\n")
        text = replace_block(text, name, S.format_table(doc), ns.isa)
        if ns.plots:
            from simt_sim.observe.plots import speedup_plot
            speedup_plot(doc["rows"], Path(ns.plots) / f"study-{name}.png", title=doc["title"])
        print(f"{name}: done", file=sys.stderr)
    known = {st.name for st in S.list_studies(ROOT)}
    results = {k: v for k, v in sorted(results.items()) if k in known}
    results_path.write_text(json.dumps(results, indent=1, sort_keys=True, default=float) + "\n")
    block = summary_block(results)
    if "<!-- summary -->" in text:
        text = re.sub(r"<!-- summary -->.*?<!-- /summary -->", lambda _: block, text, flags=re.S)
    else:
        text = text.rstrip() + "\n\n## Summary of all effects\n\n" + block + "\n"
    doc_path.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
