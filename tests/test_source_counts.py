"""Every SASS instruction's counts (warp-instructions, thread-instructions, predicated-on
thread-instructions) against Nsight Compute's source page, recorded on the H100
(programs/*/reference/h100-sass-counts.json, calibrate/source_counts.py)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from simt_sim.calibrate import source_counts as SC

ROOT = Path(__file__).resolve().parents[1]
RECORDED = sorted(p.parent.parent.name for p in (ROOT / "programs").glob(f"*/reference/{SC.FILE_NAME}"))
# The simulator runs these with a few more warp-instructions than the H100 (the same thread counts
# at every instruction): at a BSYNC the H100 sometimes takes two waiting groups together, which
# nested-ifelse shows it does not always do.  The rule is not found yet.  w-regroup-ec-*: 0.04-0.05%
# more in all; the fusion programs' cd_kernel: 2 of 29,369 executions of one BSYNC.
KNOWN_DIFFERENT = ("w-regroup-ec-base", "w-regroup-ec-index", "w-regroup-ec-permuted", "w-fusion-cd-only",
                   "w-fusion-inner-block", "w-fusion-inner-thread", "w-fusion-inter-block", "w-fusion-ptb",
                   "w-fusion-serial", "w-fusion-streams")
# workload programs CI compares (a functional SASS run each; the rest with --run-slow): one of each
# study's shapes
CI_WORKLOADS = ("w-fusion-tc-only", "w-cslow-c2", "w-ilp-mixed-n8", "w-matmul-plain", "w-pipe-double",
                "w-regroup-lbm-index", "w-regroup-predictor", "w-warpspec-fp64w4", "w-regroup-tree-base",
                "w-loopsort-sorted")


def _counted(name: str):
    if name.startswith("w-") and name not in CI_WORKLOADS:
        return pytest.param(name, marks=pytest.mark.slow)
    return name


SAMPLE = '''"Kernel Name","k",
"Address","Source","Instructions Executed","Thread Instructions Executed","Predicated-On Thread Instructions Executed"
"0x7f00","      ISETP.GT.AND P0, PT, R2, RZ, PT","2","64","64"
"0x7f10","@!P0  BRA 0x7f30","2","64","28"
"0x7f20","      BSYNC B0","6","64","64"
'''


def test_the_source_page_is_read_per_launch_and_instruction():
    (launch,) = SC.parse_source_page("==PROF== Connected\n" + SAMPLE)
    assert launch["kernel"] == "k"
    assert launch["sass"] == ["ISETP.GT.AND P0, PT, R2, RZ, PT", "@!P0 BRA 0x7f30", "BSYNC B0"]
    assert launch["counts"] == [[2, 64, 64], [2, 64, 28], [6, 64, 64]]
    assert len(SC.parse_source_page(SAMPLE + SAMPLE)) == 2


def test_every_validation_program_is_recorded():
    from simt_sim.calibrate.compare import reference_programs
    assert {p.name for p in reference_programs(ROOT)} <= set(RECORDED)


@pytest.mark.parametrize("name", [_counted(n) for n in RECORDED if n not in KNOWN_DIFFERENT])
def test_every_instruction_counts_as_on_the_h100(name):
    assert SC.differences(ROOT / "programs" / name) == []


@pytest.mark.slow
@pytest.mark.parametrize("name", KNOWN_DIFFERENT)
def test_known_differences_are_in_warp_instructions_only(name):
    """Where the counts differ, the threads are the same: only how many warp-instructions they
    take (strict: a fix shows up here)."""
    diff = SC.differences(ROOT / "programs" / name)
    assert diff
    ref = json.loads((ROOT / "programs" / name / "reference" / SC.FILE_NAME).read_text())
    recorded = [ref, *ref.get("more_launches", [])]
    simulated = [sim for _, sim in SC.simulated_counts(ROOT / "programs" / name)]
    assert [[c[1:] for c in sim] for sim in simulated] == [[c[1:] for c in r["counts"]] for r in recorded]
    assert sum(c[0] for sim in simulated for c in sim) > sum(c[0] for r in recorded for c in r["counts"])


def test_every_launch_of_a_multi_launch_program_is_compared():
    """w-fusion-serial: the predictor (tc_kernel) then the user kernel (cd_kernel), both recorded;
    the predictor's counts are identical, the user kernel's differ at one BSYNC only."""
    ref = json.loads((ROOT / "programs" / "w-fusion-serial" / "reference" / SC.FILE_NAME).read_text())
    assert [ref["kernel"], *(k["kernel"] for k in ref["more_launches"])] == ["tc_kernel", "cd_kernel"]
    diff = SC.differences(ROOT / "programs" / "w-fusion-serial")
    assert len(diff) == 1 and diff[0].startswith("w-fusion-serial launch 1 (cd_kernel)") and "BSYNC" in diff[0]


def test_separate_groups_arrive_at_a_bsync_one_by_one():
    """nested-ifelse's warp 1 splits 16/16, then its fall-through half 9/7: the H100 runs BSYNC
    three times in it (7, 9 and 16 threads; 6 times in the two warps), not twice with the two
    waiting groups merged."""
    ref = json.loads((ROOT / "programs" / "nested-ifelse" / "reference" / SC.FILE_NAME).read_text())
    ((texts, sim),) = SC.simulated_counts(ROOT / "programs" / "nested-ifelse")
    bsync = texts.index("BSYNC B0")
    assert ref["counts"][bsync] == sim[bsync] == [6, 64, 64]


def test_a_changed_kernel_is_reported_not_compared(tmp_path):
    import shutil
    d = tmp_path / "nested-ifelse"
    shutil.copytree(ROOT / "programs" / "nested-ifelse", d)
    path = d / "reference" / SC.FILE_NAME
    ref = json.loads(path.read_text())
    ref["sass"], ref["counts"] = ref["sass"][:-1], ref["counts"][:-1]
    path.write_text(json.dumps(ref))
    assert "SASS instructions here" in SC.differences(d)[0]
