"""One fault model in both modes (issue 62, point 4): a trap, an out-of-bounds global access, an
out-of-range local-array index, a misaligned access, a barrier deadlock, the instruction limit and
the wall-clock budget give exit 3 and a message with the same fields (kernel, block, warp,
thread, pc, and the PTX line the instruction came from) whether the kernel runs as PTX or as
ptxas's SASS, functionally or timed.

The kernels (tests/cuda/faults.cu, `nvcc -O3 -ptx -arch=sm_90`) fault in thread 37 of block 0
(warp 1, lane 5) where one thread faults, so those fields must agree exactly across the four
ways of running them."""
from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from simt_sim.cli.main import main
from simt_sim.machine.config import DEFAULTS

ROOT = Path(__file__).resolve().parent.parent
PTX = ROOT / "tests" / "cuda" / "faults.ptx"
WHO = 37
WHERE = re.compile(r"; kernel (?P<kernel>\w+), block \((?P<block>[\d,]+)\), warp (?P<warp>\d+), "
                   r"thread \((?P<thread>[\d,]+)\) \(lane (?P<lane>\d+)\), pc (?P<pc>\d+) `(?P<text>[^`]*)` "
                   r"\((?P<loc>[^)]*)\)")
MODES = [(isa, timed) for isa in ("ptx", "sass") for timed in (False, True)]
MODE_IDS = [f"{isa}-{'timed' if timed else 'functional'}" for isa, timed in MODES]

# kind -> (kernel, args, extra options, what the message says, the faulting thread's fields or None)
ONE_THREAD = {"block": "0,0,0", "warp": "1", "thread": f"{WHO},0,0", "lane": "5"}
KINDS = {
    "trap": ("trap_at", f"out,{WHO}", [], "trap executed", ONE_THREAD),
    "oob_global": ("oob_global", f"out,{WHO}", [], "out-of-bounds access of 4 bytes", ONE_THREAD),
    "oob_local": ("oob_local", f"out,{WHO},1048576", [], "out-of-bounds access of 4 bytes", ONE_THREAD),
    "misaligned": ("misaligned", f"out,{WHO}", [], "misaligned access of 4 bytes", ONE_THREAD),
    "deadlock": ("two_barriers", f"out,{WHO}", [], "barrier deadlock in kernel two_barriers", None),
    "instruction_limit": ("endless", "out,7", ["--set", "limits.max_warp_instructions=5000"],
                          "instruction limit of 5000 warp-instructions reached", None),
    "wall_clock": ("endless", "out,7", ["--set", "limits.wall_seconds=1", "--set",
                                        "limits.max_warp_instructions=100000000000"],
                   "wall-clock limit of 1 s reached", None),
}


def run(kind: str, isa: str, timed: bool, capsys) -> tuple[int, str, float]:
    kernel, args, extra, _, _ = KINDS[kind]
    argv = ["run", str(PTX), "--kernel", kernel, "--isa", isa, "--grid", "2", "--block", "64",
            "--buffer", "out=i32[256]", "--args", args, "--quiet", *extra] + ([] if timed else ["--functional"])
    capsys.readouterr()
    start = time.monotonic()
    code = main(argv)
    seconds = time.monotonic() - start
    return code, capsys.readouterr().err, seconds


def fields(message: str) -> dict:
    m = WHERE.search(message)
    assert m, f"no kernel/block/warp/thread/pc in: {message}"
    return m.groupdict()


def ptx_line(loc: str) -> int:
    """The PTX line a message names: PTX mode's file:line:col, SASS mode's PTX line."""
    m = re.search(r"faults\.ptx:(\d+)", loc)
    assert m, f"no PTX line in {loc!r}"
    return int(m.group(1))


@pytest.mark.parametrize("kind", list(KINDS))
def test_same_fault_same_exit_code_and_fields_in_every_mode(kind, capsys):
    _, _, _, says, thread = KINDS[kind]
    seen = {}
    for (isa, timed), mode in zip(MODES, MODE_IDS):
        if kind == "wall_clock":      # the same kernel first, so a cold engine compile is not timed
            run("instruction_limit", isa, timed, capsys)
        code, err, seconds = run(kind, isa, timed, capsys)
        assert code == 3, f"{mode}: exit {code}: {err}"
        assert err.startswith("runtime error: ") and says in err, f"{mode}: {err}"
        assert "Traceback" not in err
        f = fields(err)
        assert f["kernel"] == KINDS[kind][0]
        if thread is not None:
            assert {k: f[k] for k in thread} == thread, f"{mode}: {err}"
        else:                      # a whole warp stops: it names the warp's first active thread
            warp, lane = int(f["warp"]), int(f["lane"])
            assert f["thread"] == f"{warp * 32 + lane},0,0"
        seen[mode] = f
        if kind == "wall_clock":
            assert seconds < 20, f"{mode}: a 1 s budget took {seconds:.1f} s"
    if thread is not None:        # and the instruction that faulted comes from the same PTX line
        lines = {mode: ptx_line(f["loc"]) for mode, f in seen.items()}
        assert len(set(lines.values())) == 1, lines


def test_sass_messages_name_the_ptx_line(capsys):
    code, err, _ = run("trap", "sass", False, capsys)
    f = fields(err)
    assert code == 3 and f["text"].startswith("BPT.TRAP")
    text = PTX.read_text().splitlines()[ptx_line(f["loc"]) - 1]
    assert text.strip().startswith("trap;")


def test_the_default_wall_clock_budget_is_30_seconds(monkeypatch):
    from conftest import USER_WALL_SECONDS        # the suite itself runs without the budget (conftest)
    assert USER_WALL_SECONDS == 30.0
    monkeypatch.setitem(DEFAULTS["limits"], "wall_seconds", USER_WALL_SECONDS)
    from simt_sim import api
    from simt_sim.machine.config import LaunchConfig
    assert api.load_config("h100").get("limits.wall_seconds") == 30.0
    assert LaunchConfig().wall_budget() == 30.0 and LaunchConfig(wall_seconds=0).wall_budget() == 0.0


def test_wall_clock_budget_zero_means_none(capsys):
    # no budget: the instruction limit ends the endless loop
    code, err, _ = run("instruction_limit", "ptx", False, capsys)
    assert code == 3
    argv = ["run", str(PTX), "--kernel", "endless", "--isa", "ptx", "--functional", "--grid", "1", "--block", "32",
            "--buffer", "out=i32[64]", "--args", "out,7", "--quiet", "--set", "limits.wall_seconds=0",
            "--set", "limits.max_warp_instructions=300000"]
    assert main(argv) == 3
    assert "instruction limit of 300000" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("isa", ["ptx", "sass"])
@pytest.mark.parametrize("timed", [False, True], ids=["functional", "timed"])
def test_an_endless_loop_stops_within_30_seconds_by_default(isa, timed, capsys):
    argv = ["run", str(PTX), "--kernel", "endless", "--isa", isa, "--grid", "2", "--block", "64",
            "--buffer", "out=i32[256]", "--args", "out,7", "--quiet",
            "--set", "limits.max_warp_instructions=100000000000"] + ([] if timed else ["--functional"])
    start = time.monotonic()
    assert main(argv) == 3
    assert "wall-clock limit of 30 s reached" in capsys.readouterr().err
    assert time.monotonic() - start < 45
