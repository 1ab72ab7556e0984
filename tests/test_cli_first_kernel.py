"""A first kernel without friction (issue 63 point 5): the compile notice of a first run, options
a run cannot apply refused by name, self-explanatory metric labels, --show NAME, progress lines of
the long commands, and the tutorial's commands (docs/first-kernel.md, README) run for real."""
from __future__ import annotations

import importlib.util
import io
import json
import os
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import numba
import numpy as np
import pytest

from simt_sim.cli.main import functional_keys, main, timing_only_keys
from simt_sim.observe.progress import StepLines, steps
from simt_sim.run import compile_notice as N

ROOT = Path(__file__).resolve().parents[1]
VEC_ADD = ["run", str(ROOT / "tests/cuda/vec_add_int.ptx"), "--grid", "2", "--block", "64",
           "--buffer", "a=i32[100]:range", "--buffer", "b=i32[100]:range(7)", "--buffer", "c=i32[100]",
           "--args", "a,b,c,100", "--isa", "ptx"]


# ---- a) the compile notice -------------------------------------------------------------------

def cached_function(tmp_path: Path, monkeypatch):
    """A numba function cached on disk under a private cache folder, from a module of its own."""
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "numba-cache"))
    src = tmp_path / "tiny_engine.py"
    src.write_text(textwrap.dedent("""
        import numba

        @numba.njit(cache=True)
        def loop(x):
            total = 0
            for v in x:
                total += v * 3
            return total
    """))
    spec = importlib.util.spec_from_file_location("tiny_engine", src)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.loop


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="needs numba's compiler")
def test_needs_compile_reads_numbas_own_cache(tmp_path, monkeypatch):
    loop = cached_function(tmp_path, monkeypatch)
    ints, floats = np.arange(5), np.arange(5.0)
    assert N.needs_compile(loop, (ints,))                 # nothing cached yet
    assert loop(ints) == 30
    assert not N.needs_compile(loop, (ints,))             # compiled in this process
    assert N.needs_compile(loop, (floats,))               # another flavour (argument types) is not
    fresh = numba.njit(cache=True)(loop.py_func)          # as a new process sees it: only the disk cache
    assert not fresh.overloads
    assert not N.needs_compile(fresh, (ints,))
    assert N.needs_compile(fresh, (floats,))
    for data in (tmp_path / "numba-cache").rglob("*.nbc"):     # the index names a file that is gone
        data.unlink()
    assert N.needs_compile(numba.njit(cache=True)(loop.py_func), (ints,))


def test_a_plain_function_never_needs_a_compile():
    """Under NUMBA_DISABLE_JIT=1 the engine's loops are plain functions."""
    assert not N.needs_compile(lambda x: x, (np.arange(3),))


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="needs numba's compiler")
def test_the_notice_comes_before_a_cold_compile_only(tmp_path, monkeypatch):
    loop = cached_function(tmp_path, monkeypatch)
    out = io.StringIO()
    assert N.EngineCall(loop, "timed SASS runs", stream=out)(np.arange(4)) == 18
    lines = out.getvalue().splitlines()
    assert lines[0] == ("compiling the simulator engine for timed SASS runs (first run only, about 2 minutes; "
                        "later runs load it from numba's cache) ...")
    assert re.fullmatch(r"compiled the simulator engine for timed SASS runs in \d+ s", lines[1])
    # the seconds are kept beside numba's cache: the next estimate is this machine's own
    kept = json.loads(next((tmp_path / "numba-cache").rglob(N.COMPILE_TIMES)).read_text())
    assert set(kept) == {"timed SASS runs"}
    warm = io.StringIO()
    call = N.EngineCall(numba.njit(cache=True)(loop.py_func), "timed SASS runs", stream=warm)
    assert call(np.arange(4)) == 18 and call(np.arange(4)) == 18
    assert warm.getvalue() == ""                           # a warm cache: nothing
    with N.silenced():                                     # run --quiet
        quiet = io.StringIO()
        N.EngineCall(loop, "functional PTX runs", stream=quiet)(np.arange(4.0))
        assert quiet.getvalue() == ""
    assert N._enabled                                      # restored after the run


def test_run_quiet_silences_the_notice_for_its_own_run_only(capsys):
    assert N._enabled
    assert main(VEC_ADD + ["--functional", "--quiet"]) == 0
    assert N._enabled


def test_the_estimate_is_the_last_measured_compile(tmp_path):
    class Cache:
        cache_path = str(tmp_path)

    class Dispatcher:
        _cache = Cache()
    assert N.estimate_minutes(Dispatcher(), "timed PTX runs") == N.DEFAULT_MINUTES
    N._record_time(Dispatcher(), "timed SASS runs", 301.0)
    assert N.estimate_minutes(Dispatcher(), "timed SASS runs") == 5
    assert N.estimate_minutes(Dispatcher(), "timed PTX runs") == 5       # another flavour's, meanwhile
    N._record_time(Dispatcher(), "timed PTX runs", 70.0)
    assert N.estimate_minutes(Dispatcher(), "timed PTX runs") == 1


PROBE = """
import sys
from simt_sim.cli.main import main
from simt_sim.run import compile_notice as N

class Stop(Exception):
    pass

class NoCompile:
    # the real engine dispatcher for needs_compile; calling it stops the run instead of compiling
    def __init__(self, real):
        self.real = real
    def __getattr__(self, name):
        return getattr(self.real, name)
    def __call__(self, *args):
        raise Stop

init = N.EngineCall.__init__
N.EngineCall.__init__ = lambda self, d, what, stream=None: init(self, NoCompile(d), what, stream)
try:
    main(sys.argv[1:])
except Stop:
    print("stopped at the compile", file=sys.stderr)
"""


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="needs numba's compiler")
@pytest.mark.parametrize("functional", [False, True])
def test_the_real_engine_on_an_empty_cache_announces_its_compile(tmp_path, functional):
    """The real run_timed / run_functional dispatchers and arguments, a private empty cache: the
    notice is printed before the (here stopped) compile."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "empty"), NUMBA_DISABLE_JIT="0")
    r = subprocess.run([sys.executable, "-c", PROBE, *VEC_ADD, *(["--functional"] if functional else [])],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    mode = "functional" if functional else "timed"
    assert r.stderr.splitlines()[-2:] == [
        f"compiling the simulator engine for {mode} PTX runs (first run only, about 2 minutes; later runs load "
        "it from numba's cache) ...", "stopped at the compile"], r.stderr


def test_without_jit_nothing_is_announced(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "empty"), NUMBA_DISABLE_JIT="1")
    r = subprocess.run([sys.executable, "-m", "simt_sim", *VEC_ADD, "--functional"], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert "c = [ 7  9 11" in r.stdout


# ---- b) what a run cannot apply ---------------------------------------------------------------

def test_the_functional_keys_are_what_launch_config_reads():
    from simt_sim.machine.config import GPUConfig, load_config
    asked = set()

    class Recording(GPUConfig):
        def get(self, dotted, default=None):
            asked.add(dotted)
            return super().get(dotted, default)
    cfg = load_config("h100")
    Recording(cfg.name, cfg.path, cfg.data).launch_config()
    keys = functional_keys()
    assert keys == asked | {"name", "description", "sources"}
    assert {"warp_size", "num_sms", "simt.divergence_policy", "simt.stack_depth", "limits.max_warp_instructions",
            "limits.wall_seconds", "sm.shared_memory"} <= keys
    assert not keys & {"scheduler.policy", "scheduler.issue_width", "memory.l1.latency", "limits.max_cycles"}
    assert timing_only_keys(["scheduler.issue_width=2", "simt.stack_depth=8", "units.fp32.latency=3", "simt={}",
                             "limits.max_cycles=5"]) == ["scheduler.issue_width", "units.fp32.latency",
                                                         "limits.max_cycles"]


@pytest.mark.parametrize("extra, message", [
    (["--functional", "--set", "scheduler.issue_width=2"],
     "error: --set scheduler.issue_width: timing-model key that a --functional run does not read (drop "
     "--functional; a functional run reads limits.history_rows"),
    (["--functional", "--set", "memory.l1.latency=9", "--set", "sass.memory_queue=2", "--set", "simt.stack_depth=8"],
     "--set memory.l1.latency, sass.memory_queue: timing-model keys that a --functional run does not read"),
    (["--functional", "--scheduler", "lrr"], "error: --scheduler needs the timing model (drop --functional)"),
    (["--functional", "--registers", "32", "--stalls-by-pc", "3"],
     "error: --stalls-by-pc, --registers need the timing model (drop --functional)"),
    (["--functional", "--picture", "x.svg"], "error: --picture needs the timing model (drop --functional)"),
    (["--cycles", "0:100"], "error: --cycles selects the cycles of --picture: give --picture FILE too"),
    (["--warp", "1"], "error: --warp selects the warps of --masks or --picture: give one of them too"),
])
def test_options_a_run_cannot_apply_are_refused_by_name(capsys, tmp_path, monkeypatch, extra, message):
    monkeypatch.chdir(tmp_path)
    assert main(VEC_ADD + extra) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_buffers_and_args_of_a_program_directory_are_its_manifests(capsys):
    assert main(["run", str(ROOT / "programs/examples/article-ex1-mask"), "--buffer", "x=u32[4]", "--args", "x"]) == 2
    assert ("error: --buffer and --args: a program's buffers and arguments come from its manifest (edit its "
            "manifest.yaml, or run its kernel file with --buffer and --args)") in capsys.readouterr().err


def test_functional_keys_still_apply_under_functional(capsys):
    assert main(VEC_ADD + ["--functional", "--set", "simt.stack_depth=8", "--set",
                           "simt.divergence_policy=taken-first", "--set", "warp_size=16"]) == 0
    assert "warp size 16, config h100, divergence taken-first (functional)" in capsys.readouterr().out


def test_a_manifests_own_timing_keys_are_not_the_users(tmp_path):
    """A manifest's `set:` describes its program (for timed runs); a --functional run of it goes on:
    only --set on the command line is checked."""
    import shutil
    d = tmp_path / "p"
    shutil.copytree(ROOT / "programs/examples/article-ex1-mask", d)
    (d / "manifest.yaml").write_text((d / "manifest.yaml").read_text() + 'set: ["scheduler.issue_width=2"]\n')
    assert main(["run", str(d), "--functional", "--quiet"]) == 0
    assert main(["run", str(d), "--functional", "--quiet", "--set", "scheduler.issue_width=1"]) == 2


# ---- c) labels ----------------------------------------------------------------------------------

def test_every_metric_names_its_unit_and_its_bracketed_figure(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["run", str(ROOT / "programs/examples/data-loop"), "--json", str(out)]) == 0
    text = capsys.readouterr().out
    m = json.loads(out.read_text())["metrics"]["kernels"][0]       # --json keys as before
    rows = {}
    for line in text.splitlines():
        parts = re.split(r"\s{2,}", line.strip(), maxsplit=1)
        if len(parts) == 2:
            rows[parts[0]] = parts[1]
    assert rows["IPC, warp-instr/cycle, all SMs"] == f"{m['ipc']:.3f} [per SM {m['ipc_per_sm']:.3f}]"
    assert rows["issue-slot use, share of slots"] == f"{m['issue_slot_use']:.3f} [of {m['active_smsps']} active SMSPs]"
    assert rows["blocks resident per SM"] == (f"{m['occupancy']['blocks_per_sm']} "
                                               f"[limited by {m['occupancy']['limiter']}]")
    assert rows["cycles, launch to end"] == str(m["cycles"])
    assert rows["CFE, share of lanes with guard true"] == f"{m['cfe']:.4f}"
    summary = text[text.index("kernel "):text.index("total cycles")]
    assert "(" not in re.sub(r"\(\d+,\d+,\d+\)", "", summary.split("\n", 2)[2])   # no unnamed (figure)
    for value in re.findall(r"\[([^\]]*)\]", summary.split("\n", 2)[2]):
        assert re.match(r"[A-Za-z]", value), value          # every bracket starts with what it holds
    stalls = text[text.index("stall reasons, warp-cycles per issue"):].splitlines()[1:]
    assert stalls[0].split() == ["selected", f"{m['stall_per_issue']['selected']:.2f}"]


# ---- d) --show ----------------------------------------------------------------------------------

def test_show_prints_whole_buffers(capsys):
    assert main(VEC_ADD + ["--functional", "--show", "c", "--show", "a"]) == 0
    out = capsys.readouterr().out
    shown = re.search(r"  c \(int32\[100\]\) = \[([^\]]*)\]", out).group(1)
    assert [int(v) for v in shown.split()] == [2 * i + 7 for i in range(100)]
    assert re.search(r"  a \(int32\[100\]\) = \[([^\]]*)\]", out).group(1).split()[-1] == "99"
    assert "  b = [ 7  8  9" in out and "... (100 values; --show b prints them all)" in out


def test_show_with_quiet_prints_only_those_buffers(capsys):
    assert main(VEC_ADD + ["--quiet", "--show", "c"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("  c (int32[100]) = [  7   9  11") and out.count("\n") <= 6 and "cycles" not in out


def test_show_of_an_unknown_buffer_is_an_error(capsys):
    assert main(VEC_ADD + ["--show", "d"]) == 2
    assert "error: --show d: the run has no buffer 'd' (buffers: a, b, c)" in capsys.readouterr().err


# ---- e) progress ------------------------------------------------------------------------------

def test_steps_report_each_finished_item():
    out = io.StringIO()
    seen = []
    for name in steps(["w-a", "w-b", "w-c"], StepLines(out)):
        seen.append(name)
        assert out.getvalue().count("\n") == len(seen) - 1      # reported once its body finished
    assert seen == ["w-a", "w-b", "w-c"]
    assert [re.sub(r"\d+\.\d s$", "S s", line) for line in out.getvalue().splitlines()] == \
        ["[1/3] w-a S s", "[2/3] w-b S s", "[3/3] w-c S s"]
    assert list(steps([1, 2], None)) == [1, 2]


@pytest.mark.parametrize("argv, names", [
    (["validate", "v-smem-reduce", "v-switch8"], ["v-smem-reduce", "v-switch8"]),
    (["study", "article-regroup"], ["interleaved", "regrouped"]),
])
def test_validate_and_study_show_progress_unless_quiet(capsys, argv, names):
    assert main(argv) == 0
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("[")]
    assert [re.sub(r" \d+\.\d s$", "", line) for line in lines] == \
        [f"[{i}/{len(names)}] {n}" for i, n in enumerate(names, 1)], err
    assert main(argv + ["--quiet"]) == 0
    assert "[1/" not in capsys.readouterr().err


def test_pc_stalls_compare_shows_progress(capsys):
    from simt_sim.calibrate import pc_stalls
    assert pc_stalls.main(["compare", "w-loopsort-sorted", "w-cslow-c1-w4", "--top", "1"]) == 0
    err = capsys.readouterr().err
    assert re.findall(r"^\[(\d/\d)\] (\S+) \d+\.\d s$", err, re.M) == [("1/2", "w-loopsort-sorted"),
                                                                      ("2/2", "w-cslow-c1-w4")]
    assert pc_stalls.main(["compare", "w-loopsort-sorted", "--top", "1", "--quiet"]) == 0
    assert capsys.readouterr().err == ""


# ---- f) the tutorial's commands ------------------------------------------------------------------

def doc_commands(doc: Path) -> list[str]:
    """The simt-sim commands of a doc's ```sh blocks, continuation lines joined, comments dropped."""
    found = []
    for block in re.findall(r"```sh\n(.*?)```", doc.read_text(), re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("  #")[0].strip()
            if line.startswith("simt-sim run docs/first-kernel/"):
                found.append(" ".join(line.split()))
    return found


def test_readme_quick_start_is_the_tutorials_flow():
    tutorial = doc_commands(ROOT / "docs/first-kernel.md")
    readme = doc_commands(ROOT / "README.md")
    assert len(readme) >= 4 and set(readme) <= set(tutorial)
    assert any("--picture" in c for c in readme) and any("--scheduler" in c for c in readme)


def test_the_tutorials_commands_run(tmp_path, monkeypatch, capsys):
    (tmp_path / "docs").symlink_to(ROOT / "docs")
    monkeypatch.chdir(tmp_path)
    cycles = {}
    for command in doc_commands(ROOT / "docs/first-kernel.md"):
        argv = shlex.split(command)[1:]
        assert main(argv) == 0, command
        out = capsys.readouterr().out
        if "--scheduler" in argv:
            cycles[argv[argv.index("--scheduler") + 1]] = int(re.search(r"cycles, launch to end\s+(\d+)", out)[1])
        if "--show" in argv:
            bins = re.search(r"bins \(uint32\[16\]\) = \[([^\]]*)\]", out)[1]
            assert sum(int(v) for v in bins.split()) == 16384          # every key counted once
    assert (tmp_path / "hist.png").stat().st_size > 1000
    assert set(cycles) == {"lrr", "gto"} and cycles["gto"] < cycles["lrr"]   # the tutorial's point
