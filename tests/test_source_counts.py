"""Every SASS instruction's counts (warp-instructions, thread-instructions, predicated-on
thread-instructions) against Nsight Compute's source page, recorded on the H100
(programs/*/*/reference/h100-sass-counts.json, calibrate/source_counts.py)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from simt_sim.calibrate import source_counts as SC
from simt_sim.programs import program_dir

ROOT = Path(__file__).resolve().parents[1]
RECORDED = sorted(p.parent.parent.name for p in (ROOT / "programs").glob(f"*/*/reference/{SC.FILE_NAME}"))
# workload programs CI compares (a functional SASS run each; the rest with --run-slow): one of each
# study's shapes
CI_WORKLOADS = ("w-fusion-tc-only", "w-cslow-c2", "w-ilp-mixed-n8", "w-matmul-plain", "w-pipe-double",
                "w-regroup-lbm-index", "w-regroup-predictor", "w-warpspec-fp64w4", "w-regroup-tree-base",
                "w-loopsort-sorted", "w-regroup-ec-base")


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


@pytest.mark.parametrize("name", [_counted(n) for n in RECORDED])
def test_every_instruction_counts_as_on_the_h100(name):
    assert SC.differences(program_dir(name)) == []


@pytest.mark.slow
def test_every_launch_of_a_multi_launch_program_is_compared(tmp_path):
    """w-fusion-serial: the predictor (tc_kernel) then the user kernel (cd_kernel), both recorded
    and compared: a changed count in the second launch is reported with that launch's name."""
    import shutil
    d = tmp_path / "w-fusion-serial"
    shutil.copytree(ROOT / "programs" / "workloads" / "w-fusion-serial", d)
    path = d / "reference" / SC.FILE_NAME
    ref = json.loads(path.read_text())
    assert [ref["kernel"], *(k["kernel"] for k in ref["more_launches"])] == ["tc_kernel", "cd_kernel"]
    bsync = ref["more_launches"][0]["sass"].index("BSYNC B0")
    ref["more_launches"][0]["counts"][bsync][0] -= 2
    path.write_text(json.dumps(ref))
    (diff,) = SC.differences(d)
    assert diff.startswith("w-fusion-serial launch 1 (cd_kernel)") and "BSYNC B0" in diff


def test_separate_groups_arrive_at_a_bsync_one_by_one():
    """nested-ifelse's warp 1 splits 16/16, then its fall-through half 9/7: the H100 runs BSYNC
    three times in it (7, 9 and 16 threads; 6 times in the two warps), not twice with the two
    waiting groups merged."""
    ref = json.loads((ROOT / "programs" / "examples" / "nested-ifelse" / "reference" / SC.FILE_NAME).read_text())
    ((texts, sim),) = SC.simulated_counts(ROOT / "programs" / "examples" / "nested-ifelse")
    bsync = texts.index("BSYNC B0")
    assert ref["counts"][bsync] == sim[bsync] == [6, 64, 64]


def test_a_changed_kernel_is_reported_not_compared(tmp_path):
    import shutil
    d = tmp_path / "nested-ifelse"
    shutil.copytree(ROOT / "programs" / "examples" / "nested-ifelse", d)
    path = d / "reference" / SC.FILE_NAME
    ref = json.loads(path.read_text())
    ref["sass"], ref["counts"] = ref["sass"][:-1], ref["counts"][:-1]
    path.write_text(json.dumps(ref))
    assert "SASS instructions here" in SC.differences(d)[0]


def test_waiting_groups_join_as_the_probe_shows():
    """programs/probes/t-bsync-join: how many groups execute the BSYNC on the H100, one warp per launch,
    patterns A-E (kernel.cu); test_every_instruction_counts_as_on_the_h100 holds the simulator to
    them.  Taken sides parked by an ALU-only chain of exits join only once a third group is parked
    (A: 3 of 4 groups, D and E: no join); a load between the exits joins them all; a loop's leavers
    (fall-through sides) never join the threads that skipped it (a taken side)."""
    ref = json.loads((ROOT / "programs" / "probes" / "t-bsync-join" / "reference" / SC.FILE_NAME).read_text())
    executed = {}
    for launch in [ref, *ref["more_launches"]]:
        bsync = next(pc for pc, t in enumerate(launch["sass"]) if t.startswith("BSYNC"))
        executed.setdefault(launch["kernel"], []).append(launch["counts"][bsync][0])
    assert executed["chain_alu"] == executed["chain_sfu"] == executed["chain_long"] == [3, 4, 3, 3, 3]
    assert executed["chain_ldg"] == executed["chain_lds"] == [2, 3, 2, 2, 2]
    assert executed["loop_alu"] == executed["loop_long"] == [4, 4, 4, 3, 3]
    assert executed["loop_ldg"] == [3, 3, 3, 3, 3]
