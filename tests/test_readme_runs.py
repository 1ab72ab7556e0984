"""README's commands that take seconds run for real, as a user copies them (tests/test_doc_commands.py
checks every quoted command's arguments and paths; this runs the quick ones): each exits with 0, prints what it promises and writes the files it names.  Long ones (validate over the
whole suite, studies, sweeps, PC-sampling comparisons of workloads, GPU recording, the test suite
itself) are left to the tests of their features."""
from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from simt_sim.cli.main import main

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_doc_commands import quoted_commands  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
LONG = ("simt-sim validate", "simt-sim study", "simt-sim sweep", "simt-sim hw", "python",
        "simt-sim run programs/workloads/")
# what the output must show, by a command's start
SHOWS = {
    "simt-sim run programs/examples/article-ex3-mask --masks": "outputs match the expected values",
    "simt-sim run programs/validation/v-smem-reduce --isa ptx": "(PTX)",
    "simt-sim run programs/validation/v-smem-reduce": "(sm_90 SASS)",
    "simt-sim configs --show h200": "clock_mhz",
    "simt-sim probe --list": "xu_rate",
}


def quick_commands():
    seen, out = set(), []
    for doc, line, cmd, _ in quoted_commands():
        if doc != "README.md" or cmd.startswith(LONG) or cmd in seen:
            continue
        words = shlex.split(cmd, comments=True)
        if any(w.isupper() and w.isalpha() for w in words):        # a placeholder (NAME)
            continue
        seen.add(cmd)
        out.append(pytest.param(words, id=f"README:{line}"))
    return out


QUICK = quick_commands()


def test_the_quick_commands_are_most_of_readme():
    assert len(QUICK) >= 25


@pytest.mark.parametrize("words", QUICK)
def test_readme_command_runs(words, tmp_path, monkeypatch, capsys):
    # in a scratch folder that sees the repository's files: what the command writes lands there
    for name in ("programs", "tests", "docs", "configs", "studies", "isa"):
        (tmp_path / name).symlink_to(ROOT / name)
    monkeypatch.chdir(tmp_path)
    cmd = " ".join(words)
    rc = main(words[1:])
    out = capsys.readouterr()
    assert rc == 0, f"{cmd}: exit {rc}\n{out.err[-2000:]}"
    shows = next((text for start, text in SHOWS.items() if cmd.startswith(start)), None)
    if shows:
        assert shows in out.out + out.err, cmd
    for opt, value in zip(words, words[1:]):
        if opt in ("--json", "--picture", "--trace", "--csv") and rc == 0:
            assert (tmp_path / value).stat().st_size > 0, f"{cmd}: {value} not written"
