"""Per-instruction stall reasons, the H100's (Nsight Compute's PC sampling, recorded in
programs/*/*/reference/h100-pc-stalls.json) beside the simulator's (calibrate/pc_stalls.py), and
`simt-sim run --stalls-by-pc`."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from simt_sim.calibrate import pc_stalls as PS
from simt_sim.errors import InputError
from simt_sim.machine.layout import STALL_NAMES
from simt_sim.programs import program_dir

ROOT = Path(__file__).resolve().parents[1]
COLUMNS = list(PS.NCU_REASONS)
SAMPLE = ('"Kernel Name","k",\n"Address","Source",' + ",".join(f'"{c}"' for c in COLUMNS) + "\n"
          + '"0x7f00","      LDS R2, [R3]",' + ",".join('"3"' if c == "stall_mio" else '"0"' for c in COLUMNS) + "\n"
          + '"0x7f10","      IADD3 R2, R2, 1, RZ",' + ",".join('"5"' if c == "stall_short_sb" else '"1"' if c ==
                                                              "stall_selected" else '"0"' for c in COLUMNS) + "\n")


def test_the_source_page_gives_samples_per_instruction_and_reason():
    (doc,) = PS.from_source_page("==PROF== Connected\n" + SAMPLE, [1])
    assert doc["sass"] == ["LDS R2, [R3]", "IADD3 R2, R2, 1, RZ"]
    row = dict(zip(doc["reasons"], doc["samples"][1]))
    assert row["short_scoreboard"] == 5 and row["selected"] == 1 and sum(doc["samples"][0]) == 3
    assert set(doc["reasons"]) - set(STALL_NAMES) == {"membar", "misc", "sleeping", "tex_throttle"}
    with pytest.raises(RuntimeError):
        PS.from_source_page(SAMPLE, [2])                 # a launch missing


def test_a_warm_recording_keeps_each_programs_second_run():
    second = SAMPLE.replace('"k"', '"k2"').replace('"5"', '"7"')
    other = SAMPLE.replace('"k"', '"j"')
    a, b = PS.from_source_page(SAMPLE + second + other + other.replace('"j"', '"j2"'), [1, 1], repeats=2)
    assert a["kernel"] == "k2" and b["kernel"] == "j2"
    assert dict(zip(a["reasons"], a["samples"][1]))["short_scoreboard"] == 7
    with pytest.raises(RuntimeError):
        PS.from_source_page(SAMPLE + second + other, [1, 1], repeats=2)      # a run missing
    twice = PS.from_source_page(SAMPLE + SAMPLE + second + second + other + other.replace('"j"', '"j2"'), [1, 1], 2)
    assert [d["kernel"] for d in twice] == ["k2", "j2"]      # a page printed twice word for word counts once


def test_shares_and_agreement():
    """Shares over each side's total; agreement 1 for the same profile, 0 for disjoint ones."""
    rec = {"reasons": ["mio_throttle", "short_scoreboard", "imc_miss"], "samples": [[3, 0, 0], [0, 5, 2]]}
    cycles = np.zeros((2, len(STALL_NAMES)), np.int64)
    cycles[0, STALL_NAMES.index("mio_throttle")] = 30
    cycles[1, STALL_NAMES.index("short_scoreboard")] = 70
    hw, sim, _ = PS.shares(rec, cycles)
    assert hw.sum() == pytest.approx(1) and sim.sum() == pytest.approx(1)
    assert PS.agreement(hw, sim) == pytest.approx(0.3 + 0.5)   # imc_miss has no counterpart
    assert PS.agreement(hw, hw) == pytest.approx(1)
    assert PS.opcode_of("@!P0 BRA 0x7fe36b7aca20") == PS.opcode_of("@!P0 BRA 0x270") == "@!P0 BRA"
    assert PS.opcode_of("LDGSTS.E [R7], desc[UR8][R2.64]") == PS.opcode_of("LDGSTS.E desc[UR8][R2.64], [R7]")


def test_a_recorded_program_compares_per_instruction():
    """w-regroup-lbm-base: every recorded instruction matches the SASS here, the agreement lies in
    [0, 1] and the table lists the instruction with the most H100 samples first."""
    rec = json.loads((ROOT / "programs" / "workloads" / "w-regroup-lbm-base" / "reference" / PS.FILE_NAME).read_text())
    out = PS.comparison(ROOT / "programs" / "workloads" / "w-regroup-lbm-base", 5)
    first, header, top, *_ = out.splitlines()
    assert 0.0 <= float(first.split("agreement ")[1].split()[0]) <= 1.0
    busiest = int(np.argmax(np.sum(rec["samples"], axis=1)))
    assert int(top.split()[0]) == busiest
    assert out.splitlines()[-1].startswith("kernel: ")


def test_gaps_list_the_instructions_where_the_h100_and_the_model_differ_most():
    """`compare --gaps N`: per instruction, the H100's and the model's warp-cycles per execution on
    the model's scale, largest difference first.  CUDA-EC's instruction after its BSYNC reached by
    4.9 groups (pc 315): the 16-cycle group switch (docs/timing.md) brings the model from 48 to 71
    warp-cycles an execution, the H100's samples there standing for 113 (counted as the model's SM
    then holds 15 warps; 89 if as the kernel's mean of 12)."""
    out = PS.gaps(ROOT / "programs" / "workloads" / "w-regroup-ec-base", 60).splitlines()
    rows = [line.split() for line in out[2:]]
    assert len(rows) == 60
    gaps = [abs(float(r[4])) for r in rows]
    assert gaps == sorted(gaps, reverse=True)
    for r in rows:       # the gap is the difference of the per-execution figures times the executions
        assert float(r[4]) == pytest.approx((float(r[2]) - float(r[3])) * int(r[1]), abs=0.11 * int(r[1]) + 1)   # each figure rounded to 0.1
    after_bsync = next(r for r in rows if r[0] == "315")
    assert 0.55 * float(after_bsync[2]) < float(after_bsync[3]) < float(after_bsync[2])
    _, cycles, _ = PS.simulated(ROOT / "programs" / "workloads" / "w-regroup-ec-base", ("sass.group_switch_latency=0",))
    assert cycles[315].sum() / PS.executions(cycles)[315] < 0.8 * float(after_bsync[3])


def test_a_warp_cycle_counts_as_the_samples_of_one_of_its_sms_active_warps():
    """Nsight Compute's sampler takes one active warp of each SM every interval, so the model's
    expected samples (SimResult.pc_samples) weigh each warp-cycle 1 / the SM's warps then started
    and not exited.  tools/kernels/ldc_behind_stores.cu's k_s9_ldc, one block of 8 warps: up to
    the barrier all 8 run (8 warp-cycles a sample), after `@P0 EXIT` thread 0's warp runs alone
    (1), and the samples add up to the SM's cycles with a warp on it, as one sample a cycle would."""
    import simt_sim
    prog = simt_sim.load_program(str(ROOT / "tools" / "kernels" / "ldc_behind_stores.ptx"), "k_s9_ldc", isa="sass")
    buffers = {"res": np.zeros(21 << 17, np.uint32), "clk": np.zeros(4, np.int64)}
    out = simt_sim.simulate(simt_sim.Launch(prog, 1, 256, ["res", "clk", 0]), buffers, "h100", trace=True)
    cycles, samples = out.raw.pc_stalls[0].sum(axis=1), out.raw.pc_samples[0].sum(axis=1)
    barrier = next(pc for pc, t in enumerate(prog.texts) if t.startswith("BAR.SYNC"))
    exit_ = next(pc for pc, t in enumerate(prog.texts) if t.startswith("@P0 EXIT"))
    assert np.allclose(samples[:barrier + 1] * 8, cycles[:barrier + 1])
    assert np.allclose(samples[exit_ + 1:], cycles[exit_ + 1:]) and cycles[exit_ + 1:].sum() > 100
    assert 1 < cycles[exit_] / samples[exit_] < 8           # the others exit one by one
    spans = out.raw.warp_spans            # first issue to end; before it the warps wait at pc 0
    live = spans[:, 1].max() - spans[:, 0].min() + cycles[0] / 8
    assert samples.sum() == pytest.approx(live, rel=0.05)   # the exits' barrier waits weigh as at their end
    assert out.raw.pc_stalls[0].dtype == np.int64 and cycles.sum() > 4 * samples.sum()


def test_lbms_lone_epilogue_warp_is_sampled_as_a_whole_sm():
    """w-regroup-lbm-*: after the last barrier thread 0's warp alone reads the clock pointer (LDC.64
    c[0x0][0x240]) and waits for it at the IMAD.WIDE (pc 389).  Counted as warp-cycles at the
    kernel's mean weight, the H100's samples there made a 600-660-cycle wait of it, against the
    model's 84 (so stop 56 measured the epilogue on the GPU: 141 cycles of the median span); the
    block's 8 warps weigh one each there, the lone warp 8, and counted so the H100's wait is
    the model's within 10%."""
    for variant in ("base", "index", "permuted"):
        rec, texts, hw, sim, reasons, cycles, samples = PS.compared(program_dir(f"w-regroup-lbm-{variant}"))
        assert texts[389].startswith("IMAD.WIDE.U32 R2, R5, 0x8")
        runs = PS.executions(cycles)
        model = cycles[389].sum() / runs[389]
        assert PS.h100_warp_cycles(hw, cycles, samples)[389] / runs[389] == pytest.approx(model, rel=0.1)
        assert hw[389].sum() * cycles.sum() / runs[389] > 6 * model      # at the kernel's mean weight


def test_the_table_ranks_programs_by_agreement_and_the_queue_moves_the_sgemm_waits_to_the_results():
    """`compare --table`: one row per program, highest agreement first, and the median.  The SGEMM
    with 4 FP64 warps agreed 0.41 with the H100 while the model held its shared loads at issue
    (mio_throttle 51% against the H100's 8%); with sass.memory_queue its warps issue them and wait
    at the FFMAs that read them (short_scoreboard), as the H100's do (36%)."""
    out = PS.table(["w-matmul-warpspec4", "w-cslow-c1"]).splitlines()
    assert out[:2] == ["| program | H100 samples | agreement | largest reasons, H100 / model |", "|---|---|---|---|"]
    rows = [line.split(" | ") for line in out[2:4]]
    assert [r[0] for r in rows] == ["| w-cslow-c1", "| w-matmul-warpspec4"]
    sgemm = rows[1]
    assert float(sgemm[2]) >= 0.6
    hw_short, sim_short = (int(v.rstrip("%")) for v in sgemm[3].split("short_scoreboard ")[1].split(",")[0].split(" / "))
    assert hw_short >= 30 and sim_short >= 30
    assert out[-1].startswith("median ")


def test_a_recompiled_kernel_is_refused(tmp_path):
    src = ROOT / "programs" / "workloads" / "w-regroup-lbm-base"
    rec = json.loads((src / "reference" / PS.FILE_NAME).read_text())
    rec["sass"][0] = "NOP"
    (tmp_path / "reference").mkdir()
    (tmp_path / "reference" / PS.FILE_NAME).write_text(json.dumps(rec))
    for f in src.iterdir():
        if f.is_file():
            (tmp_path / f.name).write_bytes(f.read_bytes())
    with pytest.raises(InputError, match="differs from the recorded one"):
        PS.comparison(tmp_path, 5)


def test_run_prints_the_instructions_whose_warps_waited_longest():
    r = subprocess.run([sys.executable, "-m", "simt_sim.cli.main", "run", "programs/examples/data-loop", "--stalls-by-pc", "3"],
                       cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    i = next(k for k, line in enumerate(lines) if line.split()[:2] == ["pc", "share"])
    rows = lines[i + 1:i + 4]
    assert len(rows) == 3 and all("%" in row for row in rows)
    shares = [float(row.split()[1].rstrip("%")) for row in rows]
    assert shares == sorted(shares, reverse=True)


def test_a_warp_issues_past_a_deferred_barrier_until_its_next_memory_or_control_instruction():
    """w-fusion-cd-only ends `BAR.SYNC.DEFER_BLOCKING; ISETP; @P0 EXIT`, and its loop's barrier is
    followed by IMAD.MOV, then LDS: the H100's samples put the barrier wait on the EXIT and the LDS
    (none on the ISETP or IMAD.MOV; its third barrier, followed by ALU instructions only, shows no
    wait), and so does the model with sass.deferred_barrier (h100.yaml); without it the wait falls
    on the instruction right after each barrier."""
    pdir = ROOT / "programs" / "workloads" / "w-fusion-cd-only"
    rec = json.loads((pdir / "reference" / PS.FILE_NAME).read_text())
    hw = np.array(rec["samples"], float)[:, rec["reasons"].index("barrier")]
    barrier = STALL_NAMES.index("barrier")
    texts, cycles, _ = PS.simulated(pdir)
    deferred = cycles[:, barrier]
    plain = PS.simulated(pdir, ("sass.deferred_barrier=false",))[1][:, barrier]
    bars = [i for i, t in enumerate(texts) if t.startswith("BAR.SYNC.DEFER_BLOCKING") and hw[i + 1] + hw[i + 2] > 0]
    assert [texts[i + 2].split()[0] for i in bars] == ["LDS", "@P0"]
    for i in bars:
        assert hw[i + 2] > 20 * max(hw[i + 1], 1)
        # the last to arrive waits barrier_latency at i + 1; since sass.constants.gpu_misses the
        # block's warps reach the first barrier closer together (its wait at the LDS 31,112 -> 7,763
        # warp-cycles, the last's 1,584), so the margin there is 4.9
        assert deferred[i + 2] > 4 * max(deferred[i + 1], 1)
        assert plain[i + 1] > 20 * max(plain[i + 2], 1)
    # about the same wait, one instruction on: less by the ALU instructions deferred warps issue in
    # it (the last to arrive too, since it waits for the release at its LDS or EXIT: 21% less)
    assert deferred.sum() == pytest.approx(plain.sum(), rel=0.25)


def test_the_warm_samples_compare_with_the_models_plain_launch_and_show_lbms_second_type_read_hit_l1():
    """`compare --warm` (h100-pc-stalls-warm.json: caches not flushed, as the block clocks): a
    warp of w-regroup-lbm-index reads its cell's type again at pc 66, the line its pc 22 read; the
    ISETP on it (pc 70) waits about 15 warp-cycles an execution on the H100, an L1 hit.  With the
    L1's sets hashed (memory.l1.hash_sets) the model waits 41 there; with line-mod-sets sets of 4
    ways, where the workload's 128 KiB buffers meet in one set, 125."""
    pdir = ROOT / "programs" / "workloads" / "w-regroup-lbm-index"
    rec, texts, hw, sim, reasons, cycles, samples = PS.compared(pdir, warm=True)
    assert texts[70].startswith("@!P0 ISETP.NE.AND P2") and rec["conditions"].startswith("warm")
    runs = PS.executions(cycles)
    assert PS.h100_warp_cycles(hw, cycles, samples)[70] / runs[70] < 30
    assert cycles[70].sum() / runs[70] < 50 and PS.agreement(hw, sim) > 0.75
    _, modulo, _ = PS.simulated(pdir, ("memory.l1.hash_sets=false", "memory.l1.ways=4"), warm=True)
    assert modulo[70].sum() / PS.executions(modulo)[70] > 100
