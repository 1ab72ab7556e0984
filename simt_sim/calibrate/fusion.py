"""Kernel fusion (seed 000 Algorithm 2, seed 004): the overlap rate of a fused or concurrent run and
the paper's Table 2 (grid, block, registers, overlap) for studies/fusion.yaml.

    python -m simt_sim.calibrate.fusion              # simulate every variant, print Table 2
    python -m simt_sim.calibrate.fusion --json t.json

The overlap rate (seed 000, after Tacker) is (T_cd + T_tc - T_fuse) / (T_cd + T_tc): 0 when the
fused run takes as long as the two parts one after the other, 0.5 when it takes as long as the
longer of two equal parts, negative when fusing makes it slower.  T_cd and T_tc are the times of
the CUDA-core and tensor-core parts run alone; the study file names those variants under
`overlap: {t_cd: NAME, t_tc: NAME}`.  Hardware times are the recorded `elapsed` cycles (the whole
launch sequence, CUDA events), so one- and two-launch variants are timed alike.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from simt_sim.files import write_atomic
from simt_sim.calibrate.compare import simulated_elapsed
# the overlap rate is the study's (studies name their two parts under `overlap:`); fusion.overlap_rate stays importable
from simt_sim.calibrate.study import add_overlaps, load_study, overlap_rate  # noqa: F401
from simt_sim.errors import InputError
from simt_sim.frontend.dims import Dim3
from simt_sim.frontend.manifest import load_manifest
from simt_sim.run.timed import simulate_manifest
from simt_sim.calibrate.reference import load_reference
from simt_sim.programs import program_dir

ROOT = Path(__file__).resolve().parents[2]


def launch_shapes(manifest) -> list[dict]:
    """Per launch of a manifest: kernel, grid, block, registers per thread (the manifest's, i.e.
    ptxas's from tools/set_registers.py; None where it gives none) and stream."""
    main = {"kernel": manifest.kernel, "grid": manifest.grid, "block": manifest.block,
            "registers": manifest.registers, "stream": manifest.stream}
    more = [{"kernel": e.get("kernel"), "grid": e["grid"], "block": e["block"], "registers": e.get("registers"),
             "stream": e.get("stream", 0)} for e in manifest.more_launches]
    return [dict(s, grid=str(Dim3.of(s["grid"])), block=str(Dim3.of(s["block"]))) for s in [main, *more]]


def simulated_cycles(pdir: Path) -> int:
    """What CUDA events would measure around the program's launches (all of its manifest's): the
    cycles until the last one finishes and the config's event overhead, as the H100 is timed."""
    res = simulate_manifest(load_manifest(str(pdir)))
    return simulated_elapsed(res)


def recorded_cycles(pdir: Path, gpu: str = "h100") -> int | None:
    path = pdir / "reference" / f"{gpu}.json"
    if not path.exists():
        return None
    elapsed = load_reference(path).get("elapsed")
    return elapsed["cycles"] if elapsed else None


def table2(study: Path, root: Path = ROOT, gpu: str = "h100", cycles=simulated_cycles) -> list[dict]:
    """One row per variant: launch shapes, simulated cycles, recorded cycles (None when not yet
    recorded) and the overlap rate of each against the study's two parts."""
    spec = load_study(study)
    if not spec.overlap:
        raise InputError(f"{study}: Table 2 needs `overlap: {{t_cd: VARIANT, t_tc: VARIANT}}`")
    rows = []
    for v in spec.variants:
        pdir = program_dir(v.program, root)
        rows.append({"name": v.name, "program": v.program, "launches": launch_shapes(load_manifest(str(pdir))),
                     "sim_cycles": cycles(pdir), "hw_cycles": recorded_cycles(pdir, gpu)})
    by_name = {r["name"]: r for r in rows}
    add_overlaps(rows, by_name[spec.overlap["t_cd"]], by_name[spec.overlap["t_tc"]])
    return rows


def format_table2(rows: list[dict]) -> str:
    head = (f"{'variant':<14} {'kernel':<12} {'grid':<10} {'block':<10} {'regs':>5} {'stream':>6} "
            f"{'sim cycles':>10} {'sim overlap':>11} {'hw cycles':>10} {'hw overlap':>10}")
    lines = [head, "-" * len(head)]
    for r in rows:
        for i, s in enumerate(r["launches"]):
            first = i == 0
            lines.append(
                f"{r['name'] if first else '':<14} {s['kernel'] or '':<12} {s['grid']:<10} "
                f"{s['block']:<10} {_opt(s['registers']):>5} {s['stream']:>6} "
                f"{_opt(r['sim_cycles'] if first else None):>10} {_pct(r['sim_overlap'] if first else None):>11} "
                f"{_opt(r['hw_cycles'] if first else None):>10} {_pct(r['hw_overlap'] if first else None):>10}")
    return "\n".join(lines)


def _opt(v) -> str:
    return "" if v is None else str(v)


def _pct(v) -> str:
    return "" if v is None else f"{100 * v:.1f}%"


def main(argv: list[str] | None = None) -> int:
    import argparse
    p = argparse.ArgumentParser(prog="python -m simt_sim.calibrate.fusion",
                                description="Table 2 (grid, block, registers, overlap) of the fusion study")
    p.add_argument("--study", default=str(ROOT / "studies" / "fusion.yaml"))
    p.add_argument("--gpu", default="h100", help="reference name: programs/*/*/reference/GPU.json")
    p.add_argument("--json", help="also write the rows to this JSON file")
    ns = p.parse_args(argv)
    rows = table2(Path(ns.study), ROOT, ns.gpu)
    print(format_table2(rows))
    if ns.json:
        write_atomic(ns.json, json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except InputError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(e.exit_code)
