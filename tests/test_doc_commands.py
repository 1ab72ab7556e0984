"""Every command quoted in README.md and docs/*.md still fits the code it names.

A user copies these commands.  Running all of them would take hours (GPU recordings, studies), so
each is checked as far as it can be without running it: the module, tool or script exists, its
own argument parser accepts the arguments as written, and every repository path it reads
(programs/…, configs/…, tests/…) exists.  The commands that run in seconds are run for real by the
tests of their features.  A command with a placeholder (NAME, <dir>, …) is checked up to the
placeholder's own argument.
"""
from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import re
import runpy
import shlex
import sys
from pathlib import Path

import pytest

from simt_sim.errors import InputError

# runpy warns when a module of an already imported package runs as __main__: harmless here
pytestmark = pytest.mark.filterwarnings("ignore:.*found in sys.modules:RuntimeWarning")

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
STARTS = ("simt-sim", "python")
# options whose value is a file the command writes, not one it reads
OUTPUT_OPTIONS = {"--json", "--out", "--picture", "--trace", "-o", "--output", "--csv", "--parquet", "--save",
                  "--build", "--report", "--table", "--dir"}
REPO_DIRS = ("programs/", "configs/", "tests/", "studies/", "isa/", "tools/", "benchmarks/", "docs/")


def quoted_commands():
    """(doc, line number, command) for each simt-sim / python command in a shell block or inline code."""
    found = []
    for doc in DOCS:
        text = doc.read_text()
        for block in re.finditer(r"```(?:sh|bash|shell|console)?\n(.*?)```", text, re.S):
            first = text.count("\n", 0, block.start(1)) + 1
            lines = block.group(1).split("\n")
            n = 0
            while n < len(lines):                   # a command continued with "\" is one command
                start, line = n, lines[n]
                while line.rstrip().endswith("\\") and n + 1 < len(lines):
                    n += 1
                    line = line.rstrip()[:-1] + " " + lines[n].strip()
                for cmd in _commands_in(line):
                    found.append((doc.relative_to(ROOT).as_posix(), first + start, cmd, False))
                n += 1
        for inline in re.finditer(r"`((?:simt-sim|python (?:-m simt_sim|tools/|docs/|benchmarks/))[^`]*)`", text):
            found.append((doc.relative_to(ROOT).as_posix(), text.count("\n", 0, inline.start()) + 1,
                          inline.group(1), True))
    return found


def _commands_in(line: str):
    line = line.strip()
    if line.startswith("$ "):
        line = line[2:]
    for part in re.split(r"&&|;|\|", line):
        words = part.strip()
        words = re.sub(r"^(?:[A-Z_][A-Z0-9_]*=\S*\s+)+", "", words)      # environment assignments
        if words.startswith(STARTS):
            yield words


class _Parsed(Exception):
    pass


@contextlib.contextmanager
def _parse_only():
    """argparse parses and then stops the program: nothing runs beyond its argument checks.  Only
    the outermost call stops it (subcommand parsers are called inside the top parser's)."""
    original = argparse.ArgumentParser.parse_args, argparse.ArgumentParser.parse_known_args
    depth = [0]

    def parse_args(self, args=None, namespace=None):
        depth[0] += 1
        try:
            ns = original[0](self, args, namespace)       # its own check of unrecognized arguments
        finally:
            depth[0] -= 1
        raise _Parsed(ns)

    def parse_known_args(self, args=None, namespace=None):
        depth[0] += 1
        try:
            result = original[1](self, args, namespace)
        finally:
            depth[0] -= 1
        if depth[0] == 0:
            raise _Parsed(result[0])
        return result
    argparse.ArgumentParser.parse_args = parse_args
    argparse.ArgumentParser.parse_known_args = parse_known_args
    try:
        yield
    finally:
        argparse.ArgumentParser.parse_args, argparse.ArgumentParser.parse_known_args = original


def _placeholder(word: str) -> bool:
    if word.startswith(REPO_DIRS) and re.search(r"[*?]", word) and not re.search(r"[<>…{}]", word):
        return False                         # a glob of the repository: checked to match below
    return bool(re.search(r"[<>…]|\.\.\.|^[A-Z][A-Z0-9_]*$|[=/][A-Z][A-Z_]{1,}(\.\w+)?$|\{|\}|\*|^\[", word))


def _argv(cmd: str) -> tuple[list[str], bool]:
    """The command's words up to a redirection or a placeholder, and whether a placeholder cut it."""
    words = shlex.split(cmd, comments=True)
    for i, w in enumerate(words):
        if w.startswith(">") or w in ("2>&1", "&"):
            return words[:i], False
        if _placeholder(w):
            # keep the words before it; drop the option it is the value of, too
            return (words[:i - 1] if i and words[i - 1].startswith("-") else words[:i]), True
    return words, False


def _target(words: list[str]):
    """('cli' | 'module' | 'path' | 'pytest', name, args) for a command's words."""
    if words[0] == "simt-sim":
        return "cli", "simt-sim", words[1:]
    if words[:3] == ["python", "-m", "pytest"]:
        return "pytest", "pytest", words[3:]
    if words[:2] == ["python", "-m"] and len(words) > 2:
        if words[2] == "simt_sim":
            return "cli", "simt-sim", words[3:]
        return "module", words[2], words[3:]
    if len(words) > 1 and words[1].endswith(".py"):
        return "path", words[1], words[2:]
    return None


def _read_paths(args: list[str]) -> list[str]:
    paths, prev = [], ""
    for w in args:
        value = w.split("=", 1)[1] if w.startswith("--") and "=" in w else w
        opt = w.split("=", 1)[0] if w.startswith("--") and "=" in w else prev
        if value.startswith(REPO_DIRS) and opt not in OUTPUT_OPTIONS and not _placeholder(value):
            paths.append(value.split(":")[0].split("::")[0])
        prev = w
    return paths


# what a parser says when a command stops short of its required words: fine for a command cut at a
# placeholder, or quoted inline in prose as the name of a command or option (`simt-sim run --json`)
INCOMPLETE = ("the following arguments are required", "expected one argument")


def check(cmd: str, partial: bool = False) -> str | None:
    """None when the command fits the code; else what is wrong.  `partial`: a mention in prose."""
    try:
        words, cut = _argv(cmd)
    except ValueError as e:
        return f"cannot split: {e}"
    problem = _check_words(words)
    if problem and (cut or partial) and any(s in problem for s in INCOMPLETE):
        return None
    return problem


def _check_words(words: list[str]) -> str | None:
    target = _target(words) if words else None
    if target is None:
        return None                          # not a simt-sim command (e.g. python -c, pip)
    kind, name, args = target
    for p in _read_paths(args):
        if not (any(ROOT.glob(p)) if re.search(r"[*?]", p) else (ROOT / p).exists()):
            return f"{p} does not exist"
    if kind == "pytest":
        for a in args:
            if a.startswith("tests/") and not (ROOT / a.split("::")[0]).exists():
                return f"{a} does not exist"
        return None
    if kind == "path" and not (ROOT / name).exists():
        return f"{name} does not exist"
    if kind == "module":
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.origin:
            return f"no module {name}"
        source = Path(spec.origin).read_text()
    else:
        source = (ROOT / name).read_text() if kind == "path" else "ArgumentParser"
    if "ArgumentParser" not in source:
        return None                          # a script without options: it exists, and running it is its own test
    old_argv = sys.argv
    out = io.StringIO()
    try:
        with _parse_only(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            if kind == "cli":
                from simt_sim.cli.main import build_parser
                sys.argv = ["simt-sim", *args]
                build_parser().parse_args(args)
            elif kind == "module":
                sys.argv = [name, *args]
                runpy.run_module(name, run_name="__main__", alter_sys=False)
            else:
                sys.argv = [str(ROOT / name), *args]
                runpy.run_path(str(ROOT / name), run_name="__main__")
    except _Parsed:
        return None
    except SystemExit as e:
        if e.code in (0, None) and ("-h" in args or "--help" in args):
            return None
        return f"exit {e.code}: {out.getvalue().strip()[-300:]}"
    except ImportError as e:
        return f"cannot import: {e}"
    except InputError as e:                  # the simt-sim parser's own way to refuse arguments
        return f"refused: {e}"
    finally:
        sys.argv = old_argv
    return "reached no argument parser (it would have run)" if kind != "cli" else None


COMMANDS = quoted_commands()


def test_the_docs_quote_commands():
    assert len(COMMANDS) > 300


@pytest.mark.parametrize("doc,line,cmd,inline", COMMANDS, ids=[f"{d}:{n}" for d, n, _, _ in COMMANDS])
def test_quoted_command_fits_the_code(doc, line, cmd, inline, monkeypatch):
    monkeypatch.chdir(ROOT)
    problem = check(cmd, partial=inline)
    assert problem is None, f"{doc}:{line}: `{cmd}`: {problem}"


def test_the_check_finds_what_a_user_would_trip_on(monkeypatch):
    monkeypatch.chdir(ROOT)
    assert "does not exist" in check("simt-sim run programs/no-such-program")
    assert "does not exist" in check("python tools/no_such_tool.py --inputs 3")
    assert "unrecognized arguments" in check("simt-sim run programs/examples/figure2-ifelse --no-such-option")
    assert "no module" in check("python -m simt_sim.calibrate.no_such_module compare x")
    assert "invalid choice" in check("simt-sim run programs/examples/figure2-ifelse --scheduler fastest")
    assert check("simt-sim run programs/PURPOSE/NAME --json out.json") is None           # a placeholder
    assert check("simt-sim run programs/examples/figure2-ifelse --json out.json") is None  # an output is not read
