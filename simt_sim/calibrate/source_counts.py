"""Per-instruction counts of a program's SASS, as Nsight Compute's source page gives them ("Instructions
Executed", "Thread Instructions Executed", "Predicated-On Thread Instructions Executed" for every
SASS instruction of the kernel), recorded on the GPU and compared with the simulator's.

They locate a count difference to the instruction, and they settle what the whole-kernel counter
cannot: `smsp__thread_inst_executed_pred_on.sum` can exceed the sum of the per-instruction
figures (nested-ifelse: 1,714 against 1,698, v-loop-break: 20,107 against 20,083, measured
2026-11-24), so a kernel whose every instruction matches can still differ from that counter.

    python -m simt_sim.calibrate.source_counts record NAME...   # on the GPU machine
    python -m simt_sim.calibrate.source_counts compare [NAME...] # the simulator against them

`record` writes programs/PURPOSE/NAME/reference/h100-sass-counts.json (every launch of the program; the
SASS text per pc, so a recompiled kernel is caught); `compare` runs each program's SASS
functionally with its mask history, launch after launch, and prints every instruction whose
counts differ.
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from collections import defaultdict
from pathlib import Path

from simt_sim.files import write_atomic
from simt_sim.errors import InputError
from simt_sim.calibrate.reference import load_reference
from simt_sim.programs import program_dir, program_dirs as all_program_dirs

COUNT_COLUMNS = ("Instructions Executed", "Thread Instructions Executed",
                 "Predicated-On Thread Instructions Executed")
FILE_NAME = "h100-sass-counts.json"
ROOT = Path(__file__).resolve().parents[2]


def parse_source_page(text: str, columns: tuple[str, ...] = COUNT_COLUMNS) -> list[dict]:
    """`ncu --page source --print-source sass --csv` output -> one {"kernel", "sass", "counts"} per
    profiled launch, in launch order; counts[pc] = the columns' values (by default [warp-
    instructions, thread-instructions, predicated-on thread-instructions])."""
    launches = []
    for block in text.split('"Kernel Name",')[1:]:
        name = block.split(",", 1)[0].strip().strip('"')
        rows = list(csv.reader(io.StringIO("\n".join(block.splitlines()[1:]))))
        if not rows:
            continue
        header = rows[0]
        try:
            cols = [header.index(c) for c in columns]
            source = header.index("Source")
        except ValueError as e:
            raise InputError(f"ncu source page for {name}: no column {e}") from None
        body = [r for r in rows[1:] if len(r) > max(cols)]
        launches.append({"kernel": name, "sass": [" ".join(r[source].split()) for r in body],
                         "counts": [[int(float(r[c] or 0)) for c in cols] for r in body]})
    return launches


def record(names: list[str], root: Path = ROOT) -> list[Path]:
    """Profile each program's launches with ncu's SourceCounters section (one repeat) and keep
    every launch's per-instruction counts: the main one at the top of the file, the others (a
    manifest's more_launches, in order) under "more_launches"."""
    from simt_sim.calibrate.record import launch_count, ncu_output, program_dirs
    dirs = program_dirs(names, root)
    launches = parse_source_page(ncu_output(["--section", "SourceCounters", "--page", "source",
                                             "--print-source", "sass", "--csv"], dirs, 1, root))
    counts = [launch_count(d) for d in dirs]
    if len(launches) != sum(counts):
        raise RuntimeError(f"ncu returned {len(launches)} launches, expected {sum(counts)}")
    paths, i = [], 0
    for d, n in zip(dirs, counts):
        path = d / "reference" / FILE_NAME
        path.parent.mkdir(parents=True, exist_ok=True)
        doc = dict(launches[i], **({"more_launches": launches[i + 1:i + n]} if n > 1 else {}))
        write_atomic(path, json.dumps(doc, indent=0) + "\n")
        paths.append(path)
        i += n
    return paths


def simulated_counts(pdir: Path) -> list[tuple[list[str], list[list[int]]]]:
    """Per launch of the program (the main one, then its more_launches, run one after the other
    on the same buffers): the kernel's SASS texts and per-pc counts from a functional run with its
    mask history (one history row per warp-instruction: active lanes, and lanes whose guard holds)."""
    # imported here, not at the top: `record` runs on the GPU machine without the engine
    from simt_sim.frontend.manifest import load_manifest
    from simt_sim.machine.config import load_config
    from simt_sim.run.functional import launch
    from simt_sim.run.timed import manifest_launches
    m = load_manifest(str(pdir))
    config = load_config(m.config, m.overrides).launch_config()
    config.record_history = True
    buffers = {s.name: s.make() for s in m.buffers}
    out = []
    for kl in manifest_launches(m, isa="sass"):
        res = launch(kl.program, kl.grid, kl.block, list(kl.args), buffers, config,
                     dynamic_shared=kl.dynamic_shared)
        buffers = res.buffers
        counts = defaultdict(lambda: [0, 0, 0])
        for _, pc, active, executed in res.history.tolist():
            c = counts[pc]
            c[0] += 1
            c[1] += bin(active).count("1")
            c[2] += bin(executed).count("1")
        texts = list(kl.program.texts)
        out.append((texts, [counts[pc] if pc in counts else [0, 0, 0] for pc in range(len(texts))]))
    return out


def differences(pdir: Path) -> list[str]:
    """Every pc of every recorded launch whose simulated counts differ from the recorded ones
    (empty: identical)."""
    path = pdir / "reference" / FILE_NAME
    if not path.exists():
        raise InputError(f"{path}: not recorded (python -m simt_sim.calibrate.source_counts record {pdir.name})")
    ref = load_reference(path)
    recorded = [ref, *ref.get("more_launches", [])]
    simulated = simulated_counts(pdir)
    if len(recorded) != len(simulated):
        return [f"{pdir.name}: {len(simulated)} launches here, {len(recorded)} in the recording"]
    out = []
    for k, (rec, (texts, sim)) in enumerate(zip(recorded, simulated)):
        where = pdir.name if k == 0 else f"{pdir.name} launch {k} ({rec['kernel']})"
        if len(texts) != len(rec["sass"]):
            out.append(f"{where}: {len(texts)} SASS instructions here, {len(rec['sass'])} in the recording")
            continue
        for pc, (text, hw, ours) in enumerate(zip(rec["sass"], rec["counts"], sim)):
            if hw != ours:
                out.append(f"{where} pc {pc:#06x} {text}: H100 {hw}, simulated {ours}")
    return out


def action_parser(prog: str) -> argparse.ArgumentParser:
    """`record NAME...` (on the GPU) or `compare [NAME...]`, as this module and pc_stalls take them."""
    ap = argparse.ArgumentParser(prog=prog)
    ap.add_argument("action", choices=("record", "compare"))
    ap.add_argument("programs", nargs="*")
    return ap


def recorded_programs(names: list[str], file_name: str) -> list[str]:
    """The programs named, or else every program with a reference of that file name."""
    return names or [d.name for d in all_program_dirs(needs=f"reference/{file_name}")]


def main(argv: list[str] | None = None) -> int:
    ns = action_parser("python -m simt_sim.calibrate.source_counts").parse_args(argv)
    if ns.action == "record":
        print("\n".join(str(p) for p in record(ns.programs)))
        return 0
    names = recorded_programs(ns.programs, FILE_NAME)
    bad = 0
    for name in names:
        diff = differences(program_dir(name))
        bad += bool(diff)
        print("\n".join(diff) if diff else f"{name}: every instruction's counts identical to the H100's")
    print(f"{len(names) - bad}/{len(names)} programs identical per instruction")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
