#!/usr/bin/env python3
"""Write every study's table into docs/workloads.md, between the markers
`<!-- study:NAME -->` and `<!-- /study:NAME -->` (a study without markers gets them appended
under "## Study tables").  Each table is `simt-sim study NAME`'s text output.

    python tools/study_tables.py              # all studies
    python tools/study_tables.py ilp cslow    # only these
    python tools/study_tables.py --plots docs/img   # also each study's speed-up plot as PNG
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from simt_sim.calibrate import study as S  # noqa: E402

DOC = ROOT / "docs" / "workloads.md"


def replace_block(text: str, name: str, body: str) -> str:
    start, end = f"<!-- study:{name} -->", f"<!-- /study:{name} -->"
    block = f"{start}\n```\n$ simt-sim study {name}\n{body}\n```\n{end}"
    pattern = re.compile(re.escape(start) + ".*?" + re.escape(end), re.S)
    if pattern.search(text):
        return pattern.sub(lambda _: block, text)
    if "## Study tables" not in text:
        text = text.rstrip() + "\n\n## Study tables\n"
    return text.rstrip() + f"\n\n{block}\n"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("studies", nargs="*")
    ap.add_argument("--plots", metavar="DIR", help="also write DIR/study-NAME.png (speed-ups, sim vs H100)")
    ns = ap.parse_args()
    names = ns.studies or [s.name for s in S.list_studies(ROOT)]
    text = DOC.read_text()
    for name in names:
        doc = S.run_study(ROOT, S.find_study(ROOT, name))
        text = replace_block(text, name, S.format_table(doc))
        if ns.plots:
            from simt_sim.observe.plots import speedup_plot
            speedup_plot(doc["rows"], Path(ns.plots) / f"study-{name}.png", title=doc["title"])
        print(f"{name}: done", file=sys.stderr)
    DOC.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
