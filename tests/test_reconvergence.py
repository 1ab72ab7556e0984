"""Reconvergence and execution-mask histories: the branching article's examples, the H100's
side order, post-dominator analysis on unstructured code, and SIMT-stack limits."""
from pathlib import Path

import numpy as np
import pytest

import simt_sim
from simt_sim.isa import encoding as E
from simt_sim.errors import RuntimeFault
from simt_sim.frontend.assembler import assemble_text
from simt_sim.run.functional import mask_bits
from simt_sim.programs import program_dir

ROOT = Path(__file__).resolve().parents[1]


def run_program(name, **overrides):
    return simt_sim.run_program(program_dir(name), functional=True, overrides=overrides, history=True,
                                isa="ptx")    # the PTX reconvergence model (SASS mode: test_sass_convergence.py)


def trace(res, gid=0):
    return [(int(pc), mask_bits(int(m), res.raw.config.warp_size)) for _, pc, m, _ in res.raw.warp_history(gid)]


def test_example1_explicit_mask_history_matches_article():
    res = run_program("article-ex1-mask")
    assert [m for _, m in trace(res)] == ["11111111"] * 4 + ["01010101"] * 2 + ["11111111"] * 5
    assert res.outputs["out"].tolist() == [0, 1] * 4


def test_example2_explicit_loop_drops_one_lane_per_iteration():
    res = run_program("article-ex2-mask")
    body = [m for pc, m in trace(res) if pc == 6]          # `Do smth`
    assert body == ["11110000", "11100000", "11000000", "10000000"]
    assert trace(res)[-1] == (13, "11111111")               # reconverged after the pop


def test_example3_explicit_if_else_runs_then_else_then_join():
    res = run_program("article-ex3-mask")
    assert trace(res)[2:8] == [(2, "11111111"), (3, "11110000"), (4, "11110000"),
                               (5, "00001111"), (6, "00001111"), (7, "11111111")]


@pytest.mark.parametrize("name", ["article-ex1", "article-ex2", "article-ex3"])
def test_plain_branch_and_explicit_mask_versions_agree(name):
    a = run_program(name + "-mask").outputs["out"]
    b = run_program(name + "-branch").outputs["out"]
    assert np.array_equal(a, b)


def test_figure2_cfe_improves_after_regrouping():
    plain = run_program("figure2-ifelse")
    regrouped = run_program("figure2-regrouped")
    assert plain.metrics[0]["cfe"] < regrouped.metrics[0]["cfe"]
    # warp 0 of the regrouped input never diverges: every issued mask is full
    assert all(m == "1111" for _, m in trace(regrouped, 0))
    # in the original, warp 0 runs branch A with 3 lanes and branch B with 1 (fewer first)
    masks = [m for _, m in trace(plain, 0)]
    assert "0001" in masks and "1110" in masks
    assert masks.index("0001") < masks.index("1110")


IFELSE = """
.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1)
{
  .reg .pred %p<2>; .reg .b32 %r<6>; .reg .b64 %rd<4>;
  mov.u32 %r1, %laneid;
  ld.param.u32 %r5, [k_param_1];
  setp.lt.u32 %p1, %r1, %r5;
  @%p1 bra TAKEN;
  mov.u32 %r2, 1;
  bra.uni JOIN;
TAKEN:
  mov.u32 %r2, 2;
JOIN:
  activemask.b32 %r3;
  ld.param.u64 %rd1, [k_param_0];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
"""


@pytest.mark.parametrize("split,policy,first_pc", [
    (2, "fewer-first", 6),        # 2 lanes take the branch: the taken side (pc 6) runs first
    (6, "fewer-first", 4),        # 6 take it: the fall-through side (2 lanes) runs first
    (4, "fewer-first", 4),        # tie: fall-through first, as on the H100
    (2, "fallthrough-first", 4),
    (6, "taken-first", 6),
])
def test_divergence_side_order_policy(split, policy, first_pc):
    prog = assemble_text(IFELSE)
    config = simt_sim.load_config("h100", {"warp_size": 8, "simt.divergence_policy": policy})
    res = simt_sim.run_functional(prog, 1, 8, ["out", split], {"out": np.zeros(8, np.uint32)}, config, history=True)
    pcs = [pc for pc, _ in trace(res)]
    assert pcs[4] == first_pc
    # at the join the full mask is back, and activemask sees it
    assert res.outputs["out"].tolist() == [0xFF] * 8
    assert prog.code[3, E.F_RECONV] == prog.labels["JOIN"]


def test_reconvergence_point_of_unstructured_branch():
    # the second branch jumps over B into C: an unstructured join
    src = """
.version 9.0
.target sm_90
.address_size 64
.visible .entry k()
{
  .reg .pred %p<3>; .reg .b32 %r<4>;
  mov.u32 %r1, %laneid;
  setp.lt.u32 %p1, %r1, 2;
  setp.lt.u32 %p2, %r1, 5;
  @%p1 bra B;
A:
  add.u32 %r2, %r2, 1;
  @%p2 bra C;
B:
  add.u32 %r2, %r2, 2;
C:
  add.u32 %r2, %r2, 3;
END:
  ret;
}
"""
    prog = assemble_text(src)
    # path A can skip B (A -> C), so neither branch reconverges before C
    assert prog.code[3, E.F_RECONV] == prog.labels["C"]
    assert prog.code[5, E.F_RECONV] == prog.labels["C"]
    res = simt_sim.run_functional(prog, 1, 8, [], {}, simt_sim.load_config("h100", {"warp_size": 8}), history=True)
    assert trace(res)[-2:] == [(prog.labels["C"], "11111111"), (prog.labels["END"], "11111111")]


NESTED = """
.version 9.0
.target sm_90
.address_size 64
.visible .entry k()
{
  .reg .pred %p<3>; .reg .b32 %r<4>;
  mov.u32 %r1, %laneid;
  setp.lt.u32 %p1, %r1, 4;
  @%p1 bra OUTER_END;
  setp.lt.u32 %p2, %r1, 6;
  @%p2 bra INNER_END;
  add.u32 %r2, %r2, 1;
INNER_END:
  add.u32 %r2, %r2, 2;
OUTER_END:
  ret;
}
"""


def test_stack_depth_follows_nesting_and_overflow_names_warp_and_pc():
    prog = assemble_text(NESTED)
    res = simt_sim.run_functional(prog, 1, 8, [], {}, simt_sim.load_config("h100", {"warp_size": 8}))
    assert res.raw.max_stack_depth.max() == 2
    with pytest.raises(RuntimeFault, match=r"SIMT stack overflow \(depth limit 1\).*warp 0, thread \(4,0,0\) \(lane 4\), pc 4 "):
        simt_sim.run_functional(prog, 1, 8, [], {},
                                simt_sim.load_config("h100", {"warp_size": 8, "simt.stack_depth": 1}))


def test_early_return_lanes_leave_all_masks():
    res = run_program("early-return")
    prog = res.raw.program
    store = next(pc for pc, t in enumerate(prog.texts) if t.startswith("st.global"))
    masks = [m for pc, m in trace(res, 1) if pc == store]   # warp 1: threads 32..63, n = 50
    assert masks == ["1" * 18 + "0" * 14]


def test_runs_are_deterministic():
    a = run_program("data-loop")
    b = run_program("data-loop")
    assert np.array_equal(a.history, b.history)
    assert a.raw.counters == b.raw.counters
