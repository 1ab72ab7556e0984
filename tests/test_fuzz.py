"""The fuzzing harness (tools/fuzz.py, docs/fuzzing.md): its bounded CI profile finds no traceback,
hang, crash or memory blow-up in a few hundred mutated inputs of every category; the harness itself
classifies, deduplicates and reduces what it finds, deterministically.

`python -m pytest tests/test_fuzz.py --run-slow` adds the long profile (FUZZ_INPUTS inputs, default
100,000, on every core: hours; `python tools/fuzz.py --inputs 100000` runs the same from the shell).
"""
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))    # the worker processes (spawned) import it by this name too
import fuzz  # noqa: E402

CI_INPUTS = 240               # 30 of each category
CI_TIMEOUT = 90.0             # seconds per input: generous, the CI machine may be shared


@pytest.fixture(scope="module")
def ci_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("fuzz")
    return fuzz.fuzz(CI_INPUTS, seed=0, workers=2, timeout=CI_TIMEOUT, out=out), out


def test_ci_profile_finds_no_traceback_hang_or_crash(ci_run):
    doc, out = ci_run
    assert doc["findings"] == [], doc["table"] + "\n" + "\n".join(
        f"{f['key']}: {f['message']} ({f.get('reproducer')})" for f in doc["findings"])
    assert (out / "summary.json").exists() and len((out / "records.jsonl").read_text().splitlines()) == CI_INPUTS


def test_ci_profile_reaches_every_category_and_both_sides(ci_run):
    """Each category ran, and the mutations are neither all refused nor all harmless: some inputs
    still run to the end and some are refused with a clean error."""
    doc, _ = ci_run
    by = {}
    for r in doc["records"]:
        by.setdefault(r["category"], []).append(r["outcome"])
    assert set(by) == set(fuzz.CATEGORIES)
    assert all(len(v) == CI_INPUTS // len(fuzz.CATEGORIES) for v in by.values())
    outcomes = [o for v in by.values() for o in v]
    assert outcomes.count("ok") >= 20 and outcomes.count("input") >= 60
    located = sum(r["located"] for r in doc["records"] if r["category"] == "ptx")
    assert located >= 10                      # PTX errors carry file:line:column
    assert "| total | 240 |" in doc["table"]


def test_inputs_are_the_same_for_a_seed_whatever_the_order():
    seeds = fuzz.find_seeds()
    a = [fuzz.make_case(5, i, seeds, fuzz.CATEGORIES) for i in (3, 17, 42)]
    b = [fuzz.make_case(5, i, seeds, fuzz.CATEGORIES) for i in (42, 17, 3)][::-1]
    assert [(c.files, c.action, c.note) for c in a] == [(c.files, c.action, c.note) for c in b]
    other = fuzz.make_case(6, 3, seeds, fuzz.CATEGORIES)
    assert (other.files, other.note) != (a[0].files, a[0].note)


def test_ptx_mutations_are_grammar_aware():
    import random
    seeds = fuzz.find_seeds()
    text = (ROOT / "tests/cuda/vec_add_int.ptx").read_text()
    notes, unchanged = set(), 0
    for i in range(60):
        mutated, what = fuzz.mutate_ptx(random.Random(i), text, seeds, [text])
        notes.update(what.split("+"))
        unchanged += mutated == text        # e.g. an opcode replaced by itself, a line without a label
    assert unchanged <= 10
    assert {"number", "modifier", "register", "opcode", "line", "token"} <= notes


def selftest_case(index, what, text=b"x\n"):
    return fuzz.Case(index, "ptx", "selftest", {"in.txt": text}, ("selftest", what), "in.txt", what)


def test_outcomes_are_classified_and_findings_reduced(tmp_path):
    """A traceback, a hang, a crash and the memory cap, each from the harness's self-test action:
    classified, deduplicated by (outcome, exception, innermost frame), and the traceback's input
    reduced to the one line that causes it."""
    lines = b"\n".join(b"line %d" % i for i in range(40))
    marker = lines.replace(b"line 23", b"BOOM")
    cases = [selftest_case(0, "marker", marker), selftest_case(1, "marker", lines), selftest_case(2, "sleep"),
             selftest_case(3, "signal"), selftest_case(4, "allocate"), selftest_case(5, "marker", b"BOOM again")]
    recs = fuzz.run_cases(cases, workers=2, timeout=5.0, mem_bytes=2 << 30, jit=False)
    assert [r["outcome"] for r in recs] == ["traceback", "ok", "timeout", "crash", "memory", "traceback"]
    assert recs[0]["exc"] == "ZeroDivisionError" and recs[0]["frame"].startswith("fuzz.py:")
    assert fuzz.finding_key(recs[0]) == fuzz.finding_key(recs[5])          # one distinct finding
    small = fuzz.reduce_case(cases[0], fuzz.finding_key(recs[0]), 30.0, 2 << 30, False, budget=60)
    assert small.files["in.txt"] == b"BOOM"
    d = fuzz.save_finding(tmp_path, 0, small, recs[0])
    assert (d / "in.txt").read_bytes() == b"BOOM" and "ZeroDivisionError" in (d / "traceback.txt").read_text()
    assert "selftest" in (d / "command.txt").read_text()


@pytest.mark.slow
def test_long_profile(tmp_path):
    inputs = int(os.environ.get("FUZZ_INPUTS", "100000"))
    doc = fuzz.fuzz(inputs, seed=1, workers=os.cpu_count() or 2, timeout=60.0, out=tmp_path / "fuzz-long",
                    subprocess_every=200, generate=4, quiet=False)
    print(doc["table"])
    assert doc["findings"] == [], doc["findings"]


def test_numeric_mutation_of_infinite_and_huge_values_never_breaks_the_generator():
    """A config or reference value of inf/NaN (e.g. from an earlier mutation) once crashed the
    generator itself at an input of the long profile (OverflowError from int(inf))."""
    import random
    for v in (float("inf"), float("-inf"), float("nan"), 10**400, -3, 2.5):
        for s in range(40):
            fuzz.scaled(random.Random(s), v)      # every branch of the choice, no exception


def test_a_run_cut_short_resumes_without_running_its_inputs_again(tmp_path):
    """A long run split over sessions: --resume counts the earlier records (even a cut-short run's
    partial log) and runs only the rest; the combined records equal one uninterrupted run."""
    cats = ("config", "set")
    whole = fuzz.fuzz(12, seed=3, workers=1, categories=cats, out=tmp_path / "whole", reduce=False)
    fuzz.fuzz(5, seed=3, workers=1, categories=cats, out=tmp_path / "part", reduce=False)
    (tmp_path / "part" / "records.jsonl").unlink()          # as if killed: only the partial log is left
    resumed = fuzz.fuzz(12, seed=3, workers=1, categories=cats, out=tmp_path / "part", reduce=False,
                        resume=tmp_path / "part")
    assert resumed["resumed"] == 5 and resumed["inputs"] == 12 and not resumed["interrupted"]
    strip = lambda r: (r["index"], r["outcome"], r.get("exc"), r.get("located"))   # noqa: E731
    assert [strip(r) for r in resumed["records"]] == [strip(r) for r in whole["records"]]
    assert resumed["table"] == whole["table"]
    with pytest.raises(SystemExit, match="seed 3, not 4"):
        fuzz.fuzz(12, seed=4, workers=1, categories=cats, out=tmp_path / "other", resume=tmp_path / "part")
