"""The branching article's Figures 1-3 and 8-9 as reproduced by docs/figures.py (docs/figures.md)."""
import importlib.util
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def figures():
    spec = importlib.util.spec_from_file_location("article_figures", ROOT / "docs/figures.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def shader(figures):
    return {w: figures.shader_numbers(figures.run_shader(w)) for w in (1, 2, 4)}


def test_fig1_two_issue_keeps_both_alus_busy(shader):
    two, one = shader[2], shader[1]
    assert two["alu_busy"] > one["alu_busy"] + 0.25
    assert two["alu_busy"] > 0.7
    assert min(two["alu_busy_per_pipe"]) > 0.6
    assert two["cycles"] < one["cycles"]


def test_fig2_one_issue_starves_the_second_alu(shader):
    one = shader[1]
    assert one["alu_busy_per_pipe"][1] == 0.0
    assert one["alu_busy_per_pipe"][0] > 0.8
    assert one["alu_busy"] < 0.5


def test_fig3_four_issue_waves_wait_for_units(shader):
    four, two = shader[4], shader[2]
    assert four["unit_wait_warp_cycles"] > two["unit_wait_warp_cycles"]
    assert four["not_selected_warp_cycles"] == 0           # never short of issue slots
    assert four["alu_busy"] <= two["alu_busy"]
    assert four["cycles"] >= two["cycles"]


def test_fig1_outputs_correct(figures):
    import simt_sim
    from simt_sim.frontend.manifest import load_manifest
    from simt_sim.oracle.interpreter import run_oracle
    m = load_manifest(str(figures.SHADER))
    prog = simt_sim.load_program(figures.SHADER)
    inputs = {s.name: s.make() for s in m.buffers}
    want = run_oracle(prog, m.grid, m.block, m.args, {k: v.copy() for k, v in inputs.items()}, warp_size=8).buffers
    for w in (1, 4):
        res = figures.run_shader(w)
        assert np.array_equal(res.outputs["out"], want["out"])


@pytest.fixture(scope="module")
def loops(figures):
    counts = figures.loop_counts()
    out = {}
    for width in (1, 8, 64):
        out[width] = {}
        for name, c in (("unsorted", counts), ("sorted", np.sort(counts))):
            res, waves = figures.run_loop(width, c)
            out[width][name] = (res.cycles, waves)
    return counts, out


def test_fig8_9_sorting_helps_wide_waves(loops):
    counts, out = loops
    assert len(counts) == 256 and counts.min() >= 1 and counts.max() <= 64
    assert out[1]["sorted"][0] == out[1]["unsorted"][0]
    for width in (8, 64):
        assert out[width]["sorted"][0] < out[width]["unsorted"][0] * 0.8


def test_fig8_wave_time_is_its_slowest_thread(loops):
    counts, out = loops
    alone = out[1]["unsorted"][1]                      # per thread, run alone
    per_iter = (alone.max() - alone.min()) / (counts.max() - counts.min())
    for width in (8, 64):
        waves = out[width]["unsorted"][1]
        slowest = counts.reshape(-1, width).max(axis=1)
        # a wave takes as long as its thread with the most iterations (plus a constant)
        spread = waves - slowest * per_iter
        assert spread.max() - spread.min() <= 2
        # the total is the sum of the waves: one wave resident at a time
        assert abs(out[width]["unsorted"][0] - waves.sum()) <= len(waves) + 10
