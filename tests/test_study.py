"""`simt-sim study`: study files, the variant table against recorded references, speed-ups, formats."""
import json
import shutil
from pathlib import Path

import pytest

from simt_sim.calibrate import study as S
from simt_sim.cli.main import main
from simt_sim.errors import InputError
from simt_sim.programs import program_dir

ROOT = Path(__file__).resolve().parents[1]
SPLITS = """title: "split sizes of one branch"
variants:
  - {name: "1-31", program: v-split-1-31}
  - {name: "16-16", program: v-split-16-16}
  - {name: "8-24", program: v-split-8-24, base: "16-16"}
"""


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """A project tree with three recorded programs and one study over them."""
    root = tmp_path_factory.mktemp("study")
    for name in ("v-split-1-31", "v-split-16-16", "v-split-8-24"):
        shutil.copytree(program_dir(name), program_dir(name, root))
    (root / "studies").mkdir()
    (root / "studies" / "splits.yaml").write_text(SPLITS)
    return root


@pytest.fixture(scope="module")
def doc(tree):
    return S.run_study(tree, S.find_study(tree, "splits"))


def test_rows_carry_simulated_and_measured_values(doc):
    rows = {r["variant"]: r for r in doc["rows"]}
    for name, program in (("1-31", "v-split-1-31"), ("16-16", "v-split-16-16")):
        ref = json.loads((program_dir(program) / "reference" / "h100.json").read_text())
        cycles = sorted(c["sm__cycles_elapsed.max"] for c in ref["ncu"])
        assert rows[name]["hw_cycles"] == cycles[len(cycles) // 2]
        assert rows[name]["outputs"] is True
        assert rows[name]["sim_cycles"] > 4000
        assert 0 < rows[name]["sim_cfe"] < 1 and 0 < rows[name]["hw_cfe"] < 1


def test_speedups_are_over_each_variants_base(doc):
    rows = {r["variant"]: r for r in doc["rows"]}
    assert rows["1-31"]["sim_speedup"] == 1.0                     # its own base
    assert rows["16-16"]["sim_speedup"] == rows["1-31"]["sim_cycles"] / rows["16-16"]["sim_cycles"]
    assert rows["8-24"]["hw_speedup"] == rows["16-16"]["hw_cycles"] / rows["8-24"]["hw_cycles"]
    r = rows["8-24"]
    assert r["speedup_diff_pp"] == pytest.approx(100 * (r["sim_speedup"] - r["hw_speedup"]))
    assert doc["summary"]["effects"] == 2 and doc["summary"]["recorded"] == 3


def test_issue_slot_use_uses_the_same_sub_partitions_on_both_sides(doc):
    r = doc["rows"][0]
    smsps = r["active_smsps"]
    assert smsps == 4                                  # 2 blocks of 2 warps: 2 SMs x 2 SMSPs
    assert r["sim_issue_slot_use"] == pytest.approx(r["sim_warp_instructions"] / (r["sim_cycles"] * smsps))
    assert r["hw_issue_slot_use"] == pytest.approx(r["hw_warp_instructions"] / (r["hw_cycles"] * smsps))


def test_overlap_rate():
    from simt_sim.calibrate.fusion import overlap_rate    # the one definition the study uses
    assert overlap_rate(100, 100, 200) == 0.0          # fused = serial: nothing overlapped
    assert overlap_rate(100, 100, 100) == 0.5          # fused = one part: half the time saved
    assert overlap_rate(300, 100, 300) == 0.25


def test_formats(doc):
    text = S.format_table(doc)
    assert text.splitlines()[1].split()[:4] == ["variant", "out", "cyc", "sim"]
    assert "outputs identical: 3/3" in text
    csv_lines = S.to_csv(doc).splitlines()
    assert len(csv_lines) == 4 and csv_lines[0].startswith("variant,outputs,sim_cycles,hw_cycles")
    assert "<table>" in S.to_html(doc) and "split sizes" in S.to_html(doc)


def test_bad_study_files_name_the_place(tree):
    bad = tree / "studies" / "bad.yaml"
    bad.write_text('title: x\nvariants:\n  - {name: a, program: v-split-1-31}\n  - {name: b, program: nope}\n')
    with pytest.raises(InputError) as e:
        S.find_study(tree, "bad")
    assert "bad.yaml:4" in str(e.value) and "program 'nope' not found" in str(e.value)
    bad.write_text('title: x\nvariants:\n  - {name: a, program: v-split-1-31, base: z}\n')
    with pytest.raises(InputError, match="base 'z' is not a variant"):
        S.find_study(tree, "bad")
    bad.unlink()
    with pytest.raises(InputError, match="no study 'missing'"):
        S.find_study(tree, "missing")


def test_cli_lists_the_projects_studies(capsys):
    assert main(["study"]) == 0
    listed = capsys.readouterr().out.split("\n")
    names = {p.stem for p in (ROOT / "studies").glob("*.yaml")}
    assert {line.split()[0] for line in listed if line.strip()} == names


def test_cli_writes_plot_pictures_and_files(tree, tmp_path, monkeypatch, capsys):
    """`simt-sim study NAME --plot --pictures --csv --json --html` on a project tree of its own."""
    import simt_sim.cli.main as cli
    monkeypatch.setattr(cli, "__file__", str(tree / "simt_sim" / "cli" / "main.py"))   # root = tree
    out = tmp_path / "out"
    assert main(["study", "splits", "--plot", str(out / "x.png"), "--pictures", str(out / "pics"),
                 "--csv", str(tmp_path / "s.csv"), "--json", str(tmp_path / "s.json"),
                 "--html", str(out / "s.html")]) == 0 if out.mkdir() is None else False
    assert capsys.readouterr().out.startswith("splits: split sizes")
    assert (out / "x.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pics = sorted(p.name for p in (out / "pics").iterdir())
    assert pics == ["16-16.png", "8-24.png"]                  # every variant beside its base
    assert "pics/16-16.png" in (out / "s.html").read_text()
    assert json.loads((tmp_path / "s.json").read_text())["summary"]["variants"] == 3


def test_a_workload_study_against_its_recorded_references():
    """studies/loop-sort.yaml (seed 001 Figures 8-9 on the H100): outputs exact, CFE within the
    issue's 2 pp, the sorting effect with the H100's sign; its size is held to the gap measured
    when the references were recorded (+7.5 pp: docs/workloads.md says why)."""
    doc = S.run_study(ROOT, S.find_study(ROOT, "loop-sort"))
    rows = {r["variant"]: r for r in doc["rows"]}
    assert all(r["outputs"] is True for r in rows.values())
    for r in rows.values():
        assert abs(r["sim_cfe"] - r["hw_cfe"]) <= 0.02, r
    s = rows["sorted"]
    assert s["hw_speedup"] > 1.2 and s["sim_speedup"] > 1.2           # sorting the counts pays on both
    assert abs(s["speedup_diff_pp"]) <= 10.0, s
    assert doc["summary"] == dict(doc["summary"], effects=1, effects_same_sign=1, outputs_identical=2)


def test_a_study_in_sass_mode_has_nsight_computes_cfe():
    """Run as the SASS ptxas makes, every variant executes exactly the instructions Nsight Compute
    counted, so the CFE column is ncu's own metric: equal, not just close."""
    doc = S.run_study(ROOT, S.find_study(ROOT, "pipelining"), isa="sass")
    assert doc["isa"] == "sass" and "run as SASS" in S.format_table(doc)
    for r in doc["rows"]:
        assert r["outputs"] is True
        assert r["sim_warp_instructions"] == r["hw_warp_instructions"], r["variant"]
        assert r["sim_cfe"] == pytest.approx(r["hw_cfe"], abs=1e-12), r["variant"]


def test_block_spans_are_counted_within_ten_percent():
    """The issue's target: each variant's longest block span within 10% of the H100's."""
    rows = [{"sim_block_span": 105, "hw_block_span": 100}, {"sim_block_span": 80, "hw_block_span": 100},
            {"sim_block_span": None, "hw_block_span": 100}, {"sim_block_span": 110, "hw_block_span": 100}]
    assert [S.span_error_pct(r) for r in rows] == [5.0, -20.0, None, 10.0]
    s = S.summarize([dict(r, outputs=True, sim_cycles=1, hw_cycles=1, variant=str(i), base=str(i),
                          speedup_diff_pp=0.0) for i, r in enumerate(rows)])
    assert s["block_spans"] == 3 and s["block_spans_within_10pct"] == 2
    assert s["block_span_mae_pct"] == pytest.approx(35 / 3)
