"""Fingerprint every program's results, to show that a refactoring changed nothing.

Runs each `programs/*/*` manifest through the command line (timed with mask history and a trace,
then functional), under two warp schedulers, and records a digest of everything written:
outputs, metrics, stall reasons, mask histories, Perfetto trace, exit codes and messages.

    python tools/fingerprint.py > before.json        # on the old version
    python tools/fingerprint.py --compare before.json # on the new one: lists any difference
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from simt_sim.cli.main import main  # noqa: E402
from simt_sim.programs import program_dirs  # noqa: E402

VARIANTS = {
    "timed": ["--masks", "--quiet"],
    "timed-lrr": ["--scheduler", "lrr", "--quiet"],
    "timed-2level": ["--scheduler", "two-level", "--set", "sm.sub_partitions=2", "--quiet"],
    "functional": ["--functional", "--masks", "--quiet"],
}


def run_one(program: Path, extra: list[str], tmp: Path) -> dict:
    out_json = tmp / "out.json"
    trace = tmp / "trace.json"
    out_json.unlink(missing_ok=True)
    trace.unlink(missing_ok=True)
    argv = ["run", str(program), "--json", str(out_json)] + extra
    if "--functional" not in extra:
        argv += ["--trace", str(trace)]
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        rc = main(argv)
    doc = json.loads(out_json.read_text()) if out_json.exists() else {}
    rec = {"rc": rc, "stdout": hashlib.sha256(stdout.getvalue().encode()).hexdigest()[:16],
           "stderr": stderr.getvalue().strip()[-300:]}
    for key in ("outputs", "history", "metrics", "stats"):
        if key in doc:
            rec[key] = hashlib.sha256(json.dumps(doc[key], sort_keys=True).encode()).hexdigest()[:16]
    if "metrics" in doc:
        rec["cycles"] = doc["metrics"]["cycles"]
    if trace.exists():
        rec["trace"] = hashlib.sha256(trace.read_bytes()).hexdigest()[:16]
    return rec


def fingerprint() -> dict:
    result = {}
    with tempfile.TemporaryDirectory() as d:
        for program in program_dirs(ROOT):
            for name, extra in VARIANTS.items():
                result[f"{program.name}/{name}"] = run_one(program, extra, Path(d))
    return result


def main_cli() -> int:
    now = fingerprint()
    if len(sys.argv) > 2 and sys.argv[1] == "--compare":
        before = json.loads(Path(sys.argv[2]).read_text())
        diffs = [f"{k}: {before.get(k)} -> {now.get(k)}" for k in sorted(set(before) | set(now))
                 if before.get(k) != now.get(k)]
        print("\n".join(diffs) if diffs else f"identical ({len(now)} runs)")
        return 1 if diffs else 0
    print(json.dumps(now, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main_cli())
