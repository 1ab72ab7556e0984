"""Recorded references are checked as they are read (simt_sim/calibrate/reference.py): a truncated,
empty, garbage, wrongly typed or incomplete reference, or one holding NaN, is an InputError naming
the file and the field, never a traceback or a silent pass; `simt-sim validate` reports a damaged
reference per program and goes on with the others, exiting nonzero at the end."""
import json
import shutil
from pathlib import Path

import pytest

from simt_sim.calibrate.reference import load_reference
from simt_sim.cli.main import main
from simt_sim.errors import InputError
from simt_sim.programs import program_dir

ROOT = Path(__file__).resolve().parents[1]
GOOD = "v-split-8-24"          # a small suite program, exact on the H100 in both modes
DAMAGED = "s-control"           # copies of it get the corrupted references


def text_of(name: str, file: str = "h100.json") -> str:
    return (program_dir(name) / "reference" / file).read_text()


def doc_of(name: str, file: str = "h100.json") -> dict:
    return json.loads(text_of(name, file))


def corrupt(tmp_path: Path, text: str, file: str = "h100.json", name: str = DAMAGED) -> Path:
    """A copy of programs/PURPOSE/NAME whose reference `file` holds `text`."""
    d = tmp_path / name
    shutil.copytree(program_dir(name), d, dirs_exist_ok=True)
    (d / "reference" / file).write_text(text)
    return d / "reference" / file


def with_change(change, name: str = DAMAGED, file: str = "h100.json") -> str:
    doc = doc_of(name, file)
    change(doc)
    return json.dumps(doc, indent=1)


# (case, corrupted text, what the message must say: the field or the kind of damage)
def cases():
    full = text_of(DAMAGED)
    return [
        ("truncated", full[: len(full) // 2], r"h100\.json:\d+:\d+: error: not valid JSON .*truncated or damaged"),
        ("empty", "", "the reference file is empty"),
        ("whitespace", "\n  \n", "the reference file is empty"),
        ("garbage", "\x00\x17garbage }{ [", "not valid JSON"),
        ("not utf-8", None, "not UTF-8"),
        ("a list", "[1, 2, 3]", r"field \(top\): expected a JSON object, found a list"),
        ("outputs a list", with_change(lambda d: d.__setitem__("outputs", [1, 2])),
         "field outputs: expected an object, found a list"),
        ("ncu cycles a string", with_change(lambda d: d["ncu"][1].__setitem__("sm__cycles_elapsed.max", "many")),
         r"field ncu\[1\]\.sm__cycles_elapsed\.max: expected a number, found a string \"many\""),
        ("hex not hex", with_change(lambda d: d["outputs"]["out"].__setitem__("hex", "zz")),
         "field outputs.out.hex: expected hexadecimal bytes"),
        ("hex cut", with_change(lambda d: d["outputs"]["out"].__setitem__("hex", d["outputs"]["out"]["hex"][:-2])),
         "field outputs.out.hex: .* not a whole number of 4-byte elements"),
        ("unknown dtype", with_change(lambda d: d["outputs"]["out"].__setitem__("dtype", "float128")),
         "field outputs.out.dtype: unknown element type"),
        ("mask a pair of three", with_change(lambda d: d["mask_trace"]["0"][0].append(7)),
         r"field mask_trace\.0\[0\]: expected 2 entries, found 3"),
        ("mask beyond 32 bits", with_change(lambda d: d["mask_trace"]["0"][0].__setitem__(1, 2**32)),
         r"field mask_trace\.0\[0\]\[1\]: expected an integer <= 4294967295"),
        ("trace_count a bool", with_change(lambda d: d.__setitem__("trace_count", True)),
         "field trace_count: expected an integer, found a boolean"),
        ("elapsed zero", with_change(lambda d: d["elapsed"].__setitem__("cycles", 0)),
         "field elapsed.cycles: expected a positive number"),
        ("missing outputs", with_change(lambda d: d.pop("outputs")), "field outputs: missing"),
        ("missing ncu", with_change(lambda d: d.pop("ncu")), "field ncu: missing"),
        ("missing kernel", with_change(lambda d: d.pop("kernel")), "field kernel: missing"),
        ("missing ncu metric", with_change(lambda d: d["ncu"][2].pop("smsp__inst_executed.sum")),
         r"field ncu\[2\]\.smsp__inst_executed\.sum: missing"),
        ("missing stall reason", with_change(
            lambda d: d["ncu"][1].pop("smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio")),
         r"field ncu\[1\]\.smsp__average_warps_issue_stalled_barrier_per_issue_active\.ratio: missing"),
        ("missing hex", with_change(lambda d: d["outputs"]["out"].pop("hex")), "field outputs.out.hex: missing"),
        ("missing trace count", with_change(lambda d: d.pop("trace_count")), "field trace_count: missing"),
        ("NaN cycles", with_change(lambda d: d["ncu"][0].__setitem__("sm__cycles_elapsed.max", float("nan"))),
         r"field ncu\[0\]\.sm__cycles_elapsed\.max: NaN is not a recorded value"),
        ("Infinity elapsed", with_change(lambda d: d["elapsed"].__setitem__("ms", float("inf"))),
         "field elapsed.ms: Infinity is not a recorded value"),
        ("NaN in a trace", with_change(lambda d: d["trace_clocks"]["0"].__setitem__(0, float("nan"))),
         r"field trace_clocks\.0\[0\]: NaN is not a recorded value"),
        ("deep garbage", "[" * 100000, "nested too deeply|not valid JSON"),
    ]


CASES = cases()


@pytest.mark.parametrize("case,text,message", CASES, ids=[c[0] for c in CASES])
def test_a_damaged_reference_is_a_clear_error_naming_file_and_field(tmp_path, capsys, case, text, message):
    path = corrupt(tmp_path, text if text is not None else "")
    if text is None:
        path.write_bytes(b'{"program": "\xff\xfe"}')
    with pytest.raises(InputError, match=message) as err:
        load_reference(path)
    assert str(path) in str(err.value)
    # validate: exit 2, the file and the field on stderr, no traceback
    assert main(["validate", str(path.parent.parent)]) == 2
    out = capsys.readouterr()
    assert str(path) in out.err and "Traceback" not in out.err + out.out
    assert f"{DAMAGED}: " in out.err and "1 of 1 programs could not be compared" in out.err


def test_a_mask_trace_left_out_is_missing_where_the_program_has_a_trace_variant(tmp_path, capsys):
    path = corrupt(tmp_path, with_change(lambda d: [d.pop(k) for k in ("mask_trace", "trace_count", "trace_clocks",
                                                                       "block_clock_spans")]))
    load_reference(path)                  # a reference without a trace variant has none: the file alone is fine
    assert main(["validate", str(path.parent.parent)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: field mask_trace: missing (the program has a trace variant, kernel.trace.ptx" in err


def test_every_recorded_reference_passes_its_schema():
    """Nothing recorded is refused: the schema holds every reference validate and the calibrate
    modules read."""
    found = 0
    for pattern in ("*/*/reference/h100.json", "*/*/reference/h100-sass-counts.json", "*/*/reference/*-pc-stalls*.json",
                    "*/*/reference/*-memory.json", "*/*/reference/*-memory-warm.json"):
        for path in sorted((ROOT / "programs").glob(pattern)):
            load_reference(path)
            found += 1
    assert found > 800


@pytest.mark.parametrize("file,change,message", [
    ("h100-sass-counts.json", lambda d: d["counts"].pop(), "field counts: expected 48 entries, found 47"),
    ("h100-sass-counts.json", lambda d: d["counts"][3].__setitem__(1, -1),
     r"field counts\[3\]\[1\]: expected an integer >= 0"),
    ("h100-pc-stalls.json", lambda d: d["samples"][0].__setitem__(0, float("nan")),
     r"field samples\[0\]\[0\]: NaN"),
    ("h100-pc-stalls.json", lambda d: d.pop("reasons"), "field reasons: missing"),
    ("h200-memory.json", lambda d: d["launches"][0].pop("dram_read"), r"field launches\[0\]\.dram_read: missing"),
    ("h200-memory.json", lambda d: d["total"].__setitem__("load", "128"),
     "field total.load: expected a number or null, found a string"),
])
def test_the_other_reference_kinds_are_checked(tmp_path, file, change, message):
    name = "v-smem-reduce" if "pc-stalls" not in file else "w-matmul-plain"
    path = corrupt(tmp_path, with_change(change, name, file), file, name)
    with pytest.raises(InputError, match=message):
        load_reference(path)


def test_pc_stalls_and_memory_counters_refuse_a_damaged_recording(tmp_path):
    from simt_sim.calibrate import memory_counters, pc_stalls
    from simt_sim.calibrate.source_counts import differences
    d = corrupt(tmp_path, "{\"kernel\": ", "h100-sass-counts.json", "v-smem-reduce").parent.parent
    with pytest.raises(InputError, match="h100-sass-counts.json:1:12: error: not valid JSON"):
        differences(d)
    corrupt(tmp_path, "", "h200-memory.json", "v-smem-reduce")
    with pytest.raises(InputError, match="h200-memory.json: the reference file is empty"):
        memory_counters.recording(d)
    d = corrupt(tmp_path, "[]", "h100-pc-stalls.json", "w-matmul-plain").parent.parent
    with pytest.raises(InputError, match="expected a JSON object"):
        pc_stalls.compared(d)


def test_validate_reports_damaged_references_per_program_and_goes_on(tmp_path, capsys):
    truncated = corrupt(tmp_path / "a", text_of(DAMAGED)[:300])
    nan = corrupt(tmp_path / "b", with_change(lambda d: d["ncu"][0].__setitem__("smsp__inst_executed.sum",
                                                                                 float("nan"))))
    out_json = tmp_path / "v.json"
    rc = main(["validate", str(truncated.parent.parent), GOOD, str(nan.parent.parent), "no-such-program",
               "--json", str(out_json)])
    out = capsys.readouterr()
    assert rc == 2
    assert GOOD in out.out and "outputs identical: 1/1" in out.out       # the good one was compared
    assert f"{truncated}:" in out.err and "not valid JSON" in out.err
    assert f"{nan}: field ncu[0].smsp__inst_executed.sum: NaN" in out.err
    assert "no recorded reference" in out.err
    assert "3 of 4 programs could not be compared" in out.err and "Traceback" not in out.err
    doc = json.loads(out_json.read_text())
    assert [r["program"] for r in doc["programs"]] == [GOOD]
    assert sorted(e["program"] for e in doc["errors"]) == ["no-such-program", DAMAGED, DAMAGED]
    assert all(e["exit_code"] == 2 for e in doc["errors"])
