"""Interrupted work is never recorded as done (issue 62, point 3).  Ctrl-C is a real SIGINT: the
test hook SIMT_SIM_SIGINT_AT_SLICE=N makes the process send itself one after the engine's Nth
slice (run/slices.py), so the run stops at a known place without sleep-based races.

- `simt-sim run` (functional or timed, PTX or SASS) prints the statistics so far and exits 130;
  --json and --trace are written with "complete": false, --picture is not written, and the
  message names which;
- a fault writes no export, and says so;
- `simt-sim sweep` stops, keeps the finished rows, stores no row for the run cut short, exits
  130, and the next sweep runs that one;
- every file is written under a temporary name and renamed (simt_sim/files.py)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from simt_sim.files import atomic_open, atomic_path, write_atomic
from simt_sim.sweep.table import read_table

ROOT = Path(__file__).resolve().parent.parent
PTX = ROOT / "tests" / "cuda" / "faults.ptx"
ENDLESS = ["run", str(PTX), "--kernel", "endless", "--grid", "2", "--block", "64", "--buffer", "out=i32[256]",
           "--args", "out,7", "--set", "limits.max_warp_instructions=100000000000"]


def simt_sim(*args: str, sigint_at: int | None = 2, cwd=ROOT) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("SIMT_SIM_SIGINT_AT_SLICE", None)
    if sigint_at is not None:
        env["SIMT_SIM_SIGINT_AT_SLICE"] = str(sigint_at)
    return subprocess.run([sys.executable, "-m", "simt_sim", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=600)


@pytest.mark.parametrize("isa", ["ptx", "sass"])
def test_ctrl_c_of_a_functional_run_prints_statistics_and_marks_the_json(isa, tmp_path):
    out = tmp_path / "r.json"
    r = simt_sim(*ENDLESS, "--isa", isa, "--functional", "--json", str(out))
    assert r.returncode == 130, r.stderr
    assert "Traceback" not in r.stderr
    # the statistics so far: two slices of 200,000 warp-instructions
    insts = int(r.stdout.split("warp instructions ")[1].split(",")[0])
    assert insts >= 400_000 and "(interrupted)" in r.stdout
    assert f'written with "complete": false: {out}' in r.stderr
    doc = json.loads(out.read_text())
    assert doc["complete"] is False and doc["interrupted"] is True and doc["outputs"] == {}
    assert doc["stats"]["warp_instructions"] == insts
    assert not list(tmp_path.glob(".*tmp*"))


@pytest.mark.parametrize("isa", ["ptx", "sass"])
def test_ctrl_c_of_a_timed_run_marks_json_and_trace_and_skips_pictures(isa, tmp_path):
    out, trace, picture = tmp_path / "r.json", tmp_path / "t.json", tmp_path / "p.svg"
    r = simt_sim(*ENDLESS, "--isa", isa, "--json", str(out), "--trace", str(trace), "--picture", str(picture))
    assert r.returncode == 130, r.stderr
    assert "(interrupted)" in r.stdout                 # the statistics so far
    assert f"not written: {picture}" in r.stderr and not picture.exists()
    assert f'written with "complete": false: {out}, {trace}' in r.stderr
    doc = json.loads(out.read_text())
    assert doc["complete"] is False and doc["metrics"]["interrupted"] is True and doc["outputs"] == {}
    assert not any(k["finished"] for k in doc["metrics"]["kernels"])
    assert json.loads(trace.read_text())["otherData"]["complete"] is False


def test_a_finished_run_is_complete(tmp_path):
    out = tmp_path / "r.json"
    r = simt_sim("run", "programs/examples/data-loop", "--isa", "ptx", "--functional", "--json", str(out), "--quiet",
                 sigint_at=None)
    assert r.returncode == 0, r.stderr
    assert json.loads(out.read_text())["complete"] is True


def test_a_fault_writes_no_export_and_says_so(tmp_path):
    out, earlier = tmp_path / "r.json", tmp_path / "kept.json"
    earlier.write_text("earlier")
    r = simt_sim("run", str(PTX), "--kernel", "trap_at", "--isa", "ptx", "--functional", "--grid", "1",
                 "--block", "64", "--buffer", "out=i32[64]", "--args", "out,37", "--json", str(out),
                 sigint_at=None)
    assert r.returncode == 3
    assert f"not written (the run faulted): --json {out}" in r.stderr
    assert not out.exists() and earlier.read_text() == "earlier"


def endless_program(folder: Path) -> Path:
    d = folder / "endless"
    d.mkdir()
    (d / "kernel.ptx").write_text(PTX.read_text())
    (d / "manifest.yaml").write_text("description: never ends\nkernel_file: kernel.ptx\nkernel: endless\n"
                                     "isa: ptx\nconfig: h100\ngrid: 2\nblock: 64\nbuffers:\n  out: i32[256]\n"
                                     "args:\n- out\n- 7\n")
    return d


def test_ctrl_c_stops_a_sweep_keeps_finished_rows_and_the_rerun_redoes_the_cut_one(tmp_path):
    table = tmp_path / "r.csv"
    endless = endless_program(tmp_path)
    sweep = ["sweep", "programs/examples/data-loop", str(endless), "--workers", "0", "--out", str(table), "--quiet",
             "--set", "limits.max_warp_instructions=2000000"]
    r = simt_sim(*sweep)
    assert r.returncode == 130, r.stderr
    assert "interrupted" in r.stderr and "Traceback" not in r.stderr
    rows, _ = read_table(table)
    # data-loop finished (fewer than two slices); the endless run was cut short: no row
    assert [(Path(row["program"]).name, row["status"]) for row in rows] == [("data-loop", "ok")]
    again = simt_sim(*sweep, sigint_at=None)
    assert again.returncode == 1, again.stderr          # the endless run now ends at the instruction limit
    rows, _ = read_table(table)
    assert sorted((Path(row["program"]).name, row["status"]) for row in rows) == [("data-loop", "ok"),
                                                                                   ("endless", "error")]
    assert "instruction limit of 2000000" in [row for row in rows if row["status"] == "error"][0]["error"]


def test_atomic_writes_leave_the_old_file_on_failure(tmp_path):
    target = tmp_path / "out.json"
    write_atomic(target, "first")
    with pytest.raises(KeyboardInterrupt):
        with atomic_open(target) as f:
            f.write("half a fi")
            raise KeyboardInterrupt
    assert target.read_text() == "first"
    with atomic_path(target) as tmp:
        assert tmp.parent == target.parent and tmp.suffix == ".json" and tmp != target
        tmp.write_bytes(b"second")
        assert target.read_text() == "first"
    assert target.read_text() == "second"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]
