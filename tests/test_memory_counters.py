"""Where global sectors go: the simulator's counts (a kernel's `global_sectors`) on kernels whose
answer is known, and beside Nsight Compute's on recorded programs (simt_sim/calibrate/memory_counters.py,
programs/*/*/reference/h200-memory.json)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import simt_sim
from simt_sim.calibrate import memory_counters as MC
from simt_sim.frontend.assembler import assemble_text
from simt_sim.programs import program_dir

ROOT = Path(__file__).resolve().parents[1]


def reload_kernel(dependent: bool) -> str:
    """Each thread loads a[tid] (zeros), then a[tid + 0] again: with `dependent` the second
    address adds the first load's value (so it issues once the line is in L1), else it issues
    right behind the first (a hit on a line still being filled); then stores the sum to b[tid]."""
    second = "add.u32 %r3, %r2, %r1;" if dependent else "mov.u32 %r3, %r1;"
    return f""".version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 pa, .param .u64 pb)
{{
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [pa];
    ld.param.u64 %rd2, [pb];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r2, [%rd4];
    {second}
    mul.wide.u32 %rd5, %r3, 4;
    add.s64 %rd6, %rd1, %rd5;
    ld.global.u32 %r4, [%rd6];
    add.u32 %r5, %r4, %r2;
    add.s64 %rd7, %rd2, %rd3;
    st.global.u32 [%rd7], %r5;
    ret;
}}
"""


def sectors(dependent: bool, *overrides) -> dict:
    prog = assemble_text(reload_kernel(dependent))
    buffers = {"a": np.zeros(64, np.uint32), "b": np.zeros(64, np.uint32)}
    res = simt_sim.simulate(simt_sim.Launch(prog, 1, 64, ["a", "b"]), buffers,
                            simt_sim.load_config("h100", list(overrides)))
    return res.metrics[0]["global_sectors"]


def test_a_reload_after_the_fill_hits_l1_and_one_before_it_hits_a_line_on_its_way():
    # two warps, 4 sectors a warp-load: 16 loaded, the first 8 past L1, then 8 stored
    after = sectors(True)
    assert after == {"load": 16, "l1_hit": 8, "l1_hit_pending": 0, "l2_read": 8, "l2_hit": 8,
                     "dram_read": 0, "store": 8}      # a plain launch: the host's copy left a in L2
    behind = sectors(False)
    assert behind["l1_hit"] == 8 and behind["l1_hit_pending"] == 8 and behind["l2_read"] == 8


def test_with_caches_flushed_the_first_loads_come_from_dram():
    flushed = sectors(True, "host.caches_flushed=true")
    assert (flushed["l2_read"], flushed["l2_hit"], flushed["dram_read"]) == (8, 0, 8)


@pytest.mark.parametrize("invalidate", [True, False])
def test_a_kernel_starts_with_every_l1_empty_when_the_config_says_so(invalidate):
    prog = assemble_text(reload_kernel(True))
    buffers = {"a": np.zeros(64, np.uint32), "b": np.zeros(64, np.uint32)}
    twice = [simt_sim.Launch(prog, 1, 64, ["a", "b"]) for _ in range(2)]
    cfg = simt_sim.load_config("h100", [f"memory.l1.invalidate_at_launch={str(invalidate).lower()}"])
    first, second = (m["global_sectors"] for m in simt_sim.simulate(twice, buffers, cfg).metrics)
    assert first["l1_hit"] == 8
    assert second["l1_hit"] == (8 if invalidate else 16)      # kept: even the first loads hit


def recorded_total(name: str) -> dict:
    return json.loads((program_dir(name) / "reference" / "h200-memory.json").read_text())["total"]


@pytest.mark.parametrize("name", ["w-regroup-lbm-base", "w-regroup-lbm-index", "w-regroup-lbm-permuted"])
def test_lbms_gathers_hit_l1_as_often_as_on_the_gpu(name):
    """Nsight Compute's L1 hits count hits on lines still being filled (its misses are the sectors
    read from L2: 79,685 and 79,541 for w-regroup-lbm-index); the model's hits and L2 reads within
    1 pp / 1% of the H200's."""
    hw = recorded_total(name)
    sim = MC.simulated(program_dir(name))
    assert sim["load"] == hw["load"]
    assert abs(sim["l1_hit"] / sim["load"] - hw["l1_hit"] / hw["load"]) < 0.01
    assert abs(sim["l2_read"] / hw["l2_read"] - 1) < 0.01


def test_record_parses_and_sums_every_launchs_counters():
    doc = json.loads((ROOT / "programs" / "workloads" / "w-fusion-streams" / "reference" / "h200-memory.json").read_text())
    assert len(doc["launches"]) == 2 and doc["metrics"] == MC.METRICS
    for k in MC.COMPARED:
        assert doc["total"][k] == sum(lc[k] for lc in doc["launches"])


def test_compare_prints_both_sides_and_the_mean_difference(capsys):
    assert MC.main(["compare", "v-lat-l1"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("v-lat-l1"))
    assert row.split()[1:5] == ["64", "64", "50.0", "50.0"]
    assert "mean absolute difference 0.0 pp over 1 programs" in out


def test_the_run_table_shows_where_the_sectors_went():
    from simt_sim.observe.metrics import format_metrics
    prog = assemble_text(reload_kernel(True))
    buffers = {"a": np.zeros(64, np.uint32), "b": np.zeros(64, np.uint32)}
    res = simt_sim.simulate(simt_sim.Launch(prog, 1, 64, ["a", "b"]), buffers, "h100")
    parts = [re.split(r"\s{2,}", line.strip(), maxsplit=1) for line in format_metrics(res.raw).splitlines()]
    rows = dict(p for p in parts if len(p) == 2)          # headings ("stall reasons, ...") hold no value
    assert rows["global sectors loaded, 32 B each"] == "16" and rows["L1 hits, share of sectors loaded"] == "50.0%"
    assert rows["read from L2, sectors"] == "8 [L2 hits 100.0%]" and rows["global sectors stored, 32 B each"] == "8"


def test_a_warm_launch_reads_its_inputs_from_l2_on_the_gpu_and_in_the_model():
    """`record --warm` / `compare --warm` (h200-memory-warm.json: caches not flushed, the second of
    two runs, as the block clocks were recorded): w-regroup-lbm-base's host copies leave its inputs
    in L2, 296 of 79,546 sectors read from L2 come from DRAM (49,432 flushed); the model's warm
    run reads none from DRAM and as many from L2."""
    rec = json.loads((ROOT / "programs" / "workloads" / "w-regroup-lbm-base" / "reference" / "h200-memory-warm.json").read_text())
    hw = rec["total"]
    assert rec["conditions"].startswith("warm") and hw["dram_read"] < 0.01 * hw["l2_read"]
    sim = MC.simulated(ROOT / "programs" / "workloads" / "w-regroup-lbm-base", warm=True)
    assert sim["dram_read"] == 0 and abs(sim["l2_read"] / hw["l2_read"] - 1) < 0.01
    assert abs(sim["l1_hit"] / sim["load"] - hw["l1_hit"] / hw["load"]) < 0.01
