"""Property tests on random structured kernels (tests/kernelgen.py).

  (a) every thread's outputs equal the per-thread oracle's (and the generator's reference
      semantics of the program);
  (b) every reconvergence event restores the mask recorded when its frame was opened, minus the
      threads that exited meanwhile (frames reconstructed from RunResult.events);
  (c) per-thread instruction counts equal the oracle's exactly;
  (d) outputs (and per-thread instruction counts) do not depend on the divergence policy or the
      warp size, block sizes that are not multiples of the warp size included;
  (e) the SIMT stack never gets deeper than the program's static nesting depth;
  (f) with device functions (kernelgen.kernels_with_calls: divergent and guarded calls, early
      `ret` in some lanes, calls inside callees): (a) to (c), reconvergence inside callees
      included, and exact call masks: a callee runs with exactly the calling lanes, lanes that
      return early wait (no caller instruction runs before the return), and the warp resumes
      after the call with every lane that was active at the call.

Examples per test come from the Hypothesis profile (tests/conftest.py): "ci" by default,
`--hypothesis-profile=long` for 1000 examples each.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import example, given, note
from hypothesis import strategies as st

from kernelgen import NV, GeneratedKernel, kernel_from_stmts, kernels, kernels_with_calls
from simt_sim.isa import encoding as E
from simt_sim.machine.layout import EV_CALL, EV_DIVERGE, EV_RECONVERGE, EV_RETURN, POLICY_NAMES
from simt_sim.frontend.assembler import Program, assemble_text
from simt_sim.run.functional import LaunchConfig, RunResult, launch, mask_bits
from simt_sim.oracle.interpreter import run_oracle

ARGS = ["in", "out"]
WARP_SIZES = (4, 8, 32)


@dataclass
class Case:
    kernel: GeneratedKernel
    grid: int
    block: int
    inp: np.ndarray

    @property
    def n(self) -> int:
        return self.grid * self.block

    def buffers(self) -> dict[str, np.ndarray]:
        return {"in": self.inp.copy(), "out": np.zeros(self.n * NV, dtype=np.uint32)}

    def __repr__(self) -> str:
        return (f"Case(grid={self.grid}, block={self.block}, inp={[int(x) for x in self.inp]},\n"
                f"     kernel={self.kernel!r})")

    def _repr_pretty_(self, p, cycle) -> None:
        p.text(repr(self))


@st.composite
def cases(draw, calls: bool = False, **kernel_options) -> Case:
    kernel = draw(kernels_with_calls() if calls else kernels(**kernel_options))
    grid = draw(st.integers(1, 2))
    block = draw(st.one_of(st.sampled_from([24, 40, 64]), st.integers(1, 64)))
    words = draw(st.lists(st.one_of(st.integers(0, 63), st.integers(0, 2**32 - 1)),
                          min_size=grid * block, max_size=grid * block))
    return Case(kernel, grid, block, np.array(words, dtype=np.uint32))


def assemble(case: Case) -> Program:
    note(case.kernel.ptx)
    return assemble_text(case.kernel.ptx, file="<kernelgen>")


def run_engine(prog: Program, case: Case, warp_size: int = 32, policy: str = "fewer-first") -> RunResult:
    return launch(prog, case.grid, case.block, ARGS, case.buffers(),
                  LaunchConfig(warp_size=warp_size, policy=policy))


def by_thread(icount: np.ndarray, case: Case, warp_size: int) -> np.ndarray:
    """thread_icount (indexed by warp slot: block * wpb * ws + tid) -> by global thread id."""
    wpb = -(-case.block // warp_size)
    g = np.arange(case.n)
    return icount[(g // case.block) * wpb * warp_size + g % case.block]


def expected_outputs(case: Case) -> np.ndarray:
    return case.kernel.evaluate(case.inp, case.block, case.grid)


def first_mismatch(got: np.ndarray, want: np.ndarray) -> str:
    bad = np.flatnonzero(got != want)
    i = int(bad[0])
    return (f"{len(bad)} words differ; first: out[{i}] (thread {i // NV}, word {i % NV}) "
            f"= {int(got[i]):#x}, expected {int(want[i]):#x}")


# ------------------------------------------------------------------ (a) outputs == oracle

@given(cases(), st.sampled_from(POLICY_NAMES), st.sampled_from(WARP_SIZES))
def test_outputs_match_oracle(case, policy, warp_size):
    prog = assemble(case)
    res = run_engine(prog, case, warp_size, policy)
    orc = run_oracle(prog, case.grid, case.block, ARGS, case.buffers(), warp_size=warp_size)
    got, want = res.buffers["out"], orc.buffers["out"]
    assert np.array_equal(got, want), "engine vs oracle: " + first_mismatch(got, want)
    ref = expected_outputs(case)
    assert np.array_equal(want, ref), "oracle vs kernelgen reference semantics: " + first_mismatch(want, ref)


# ------------------------------------------------------------------ (b) reconvergence masks

def check_reconvergence(res: RunResult, prog: Program) -> int:
    """Replay each warp's divergence / reconvergence events against a stack of frames
    (reconvergence pc, join mask).  A diverge event whose depth grew opens a frame with the mask
    recorded there; one at the same depth re-splits the top frame (a loop's next iteration), which
    must have the same reconvergence pc and keeps its first join mask.  A reconverge event carries
    the depth after popping; its mask must be the join mask minus the threads that exited before
    it.  Frames whose threads all exited vanish without an event.

    Exits are read from the warp's instruction history (ret rows and their guard-true masks).  A
    diverge event belongs to the history row of its branch; a reconverge event happened in the
    settle of one step between the previous diverge event's row and the next one's: its mask must
    equal join & live after some step in that window (exact whenever no thread exits there).
    Calls: a call event opens a frame (return pc, the mask at the call) like a diverge event; lanes
    that `ret` inside a function leave the frames opened inside it (they count as gone until the
    warp is back after the call); the return event must restore the call's mask exactly (minus
    exited threads) at the return pc, and closes the callee's frames.
    Returns the number of reconverge and return events checked."""
    ws = res.config.warp_size
    wpb = res.warps_per_block
    tpb = res.block.count
    code = prog.code
    checked = 0
    n_warps = res.grid.count * wpb
    hist_gid = res.history[:, 0]
    ev_gid = res.events[:, 0]
    for gid in range(n_warps):
        H = res.history[hist_gid == gid]
        V = res.events[ev_gid == gid]
        wib = gid % wpb
        lanes = min(ws, tpb - wib * ws)
        live_all = (1 << lanes) - 1
        live_after = []
        exits_after = []
        div_rows = []
        returned, open_calls, exited = 0, [], 0     # lanes gone from the innermost function
        for i, (_, pc, mask, ex) in enumerate(H):
            op = code[pc, E.F_OP]
            if open_calls and pc == open_calls[-1][0]:          # back after the call
                returned = open_calls.pop()[1]
            if op == E.OP_RET and code[pc, E.F_FLAGS] & E.FL_IN_FUNC:
                returned |= int(ex)
            elif op in (E.OP_RET, E.OP_EXIT):
                exited |= int(ex)
            elif op == E.OP_BRA and ex != 0 and (mask & ~ex) != 0:
                div_rows.append(i)
            elif op == E.OP_CALL and ex != 0:
                div_rows.append(i)
                open_calls.append((pc + 1, returned))
                returned = 0
            live = live_all & ~exited & ~returned
            live_after.append(live)
            exits_after.append(live_all & ~exited)
        live = live_all & ~exited
        where = f"warp {gid} (ws={ws}, policy={res.config.policy})"
        assert live == 0, f"{where}: threads {mask_bits(live, ws)} never exited"
        frames: list[list[int]] = []          # [rpc, join mask at the first split]
        k = 0
        lo = 0
        for _, kind, pc, m, d in V:
            pc, m, d = int(pc), int(m), int(d)
            if kind == EV_CALL or kind == EV_DIVERGE:
                assert k < len(div_rows), f"{where}: diverge event at pc {pc} without a divergent branch"
                t = div_rows[k]
                k += 1
                assert int(H[t, 1]) == pc and int(H[t, 2]) == m, \
                    f"{where}: diverge event (pc {pc}, mask {mask_bits(m, ws)}) does not match " \
                    f"history row {t} (pc {int(H[t, 1])}, mask {mask_bits(int(H[t, 2]), ws)})"
                lv = live_after[t]
                while frames and (frames[-1][1] & lv) == 0:
                    frames.pop()              # every thread of it exited: popped silently
                rpc = pc + 1 if kind == EV_CALL else int(code[pc, E.F_RECONV])
                if d == len(frames) + 1:
                    frames.append([rpc, m])
                elif d == len(frames):
                    assert frames[-1][0] == rpc, \
                        f"{where}: branch at pc {pc} (reconverges at {rpc}) re-split the frame at " \
                        f"depth {d}, which reconverges at {frames[-1][0]}"
                    assert m & ~frames[-1][1] == 0, \
                        f"{where}: re-split at pc {pc} with mask {mask_bits(m, ws)} outside the " \
                        f"frame's join mask {mask_bits(frames[-1][1], ws)}"
                else:
                    raise AssertionError(f"{where}: diverge event at pc {pc} reports depth {d}, "
                                         f"but {len(frames)} frames are open")
                lo = t
            elif kind == EV_RETURN:
                assert d < len(frames), f"{where}: return at pc {pc} pops depth {d}, only {len(frames)} open"
                rpc, join = frames[d]
                assert pc == rpc, f"{where}: call at depth {d} returns to pc {pc}, not to {rpc}"
                assert m == join & exits_after[lo], \
                    f"{where}: return to pc {pc} with mask {mask_bits(m, ws)}, the call had {mask_bits(join, ws)}"
                del frames[d:]                # the callee's frames: all of their lanes returned
                checked += 1
            else:
                assert kind == EV_RECONVERGE
                hi = div_rows[k] - 1 if k < len(div_rows) else len(H) - 1
                assert d < len(frames), \
                    f"{where}: reconverge event at pc {pc} pops depth {d}, only {len(frames)} open"
                rpc, join = frames[d]
                assert pc == rpc, f"{where}: frame at depth {d} reconverges at pc {pc}, not at {rpc}"
                s = next((s for s in range(lo, hi + 1) if join & live_after[s] == m), None)
                assert s is not None, (
                    f"{where}: reconvergence at pc {pc} (depth {d}) restored mask {mask_bits(m, ws)}; "
                    f"the frame opened with {mask_bits(join, ws)}, whose live threads were "
                    + ", ".join(sorted({mask_bits(join & live_after[x], ws) for x in range(lo, hi + 1)})))
                for stale in frames[d + 1:]:
                    assert stale[1] & live_after[s] == 0, \
                        f"{where}: frame (rpc {stale[0]}) above depth {d} vanished with live threads"
                del frames[d:]
                lo = s
                checked += 1
        assert k == len(div_rows), f"{where}: {len(div_rows) - k} divergent branches logged no event"
    return checked


@given(cases(), st.sampled_from(POLICY_NAMES), st.sampled_from(WARP_SIZES))
def test_reconvergence_masks(case, policy, warp_size):
    prog = assemble(case)
    res = run_engine(prog, case, warp_size, policy)
    check_reconvergence(res, prog)


# ------------------------------------------------------------------ (c) instruction counts

@given(cases(), st.sampled_from(POLICY_NAMES), st.sampled_from(WARP_SIZES))
def test_instruction_counts_match_oracle(case, policy, warp_size):
    prog = assemble(case)
    res = run_engine(prog, case, warp_size, policy)
    orc = run_oracle(prog, case.grid, case.block, ARGS, case.buffers(), warp_size=warp_size)
    got = by_thread(res.thread_icount, case, warp_size)
    want = by_thread(orc.thread_icount, case, warp_size)
    bad = np.flatnonzero(got != want)
    assert len(bad) == 0, (f"{len(bad)} threads differ; thread {int(bad[0])}: engine "
                           f"{int(got[bad[0]])} instructions, oracle {int(want[bad[0]])}")
    assert res.thread_icount.sum() == orc.instructions


# ------------------------------------------------------------------ (d) policy / warp size

@given(cases())
def test_outputs_independent_of_policy_and_warp_size(case):
    prog = assemble(case)
    ref_out = expected_outputs(case)
    ref_icount = None
    for warp_size in WARP_SIZES:
        for policy in POLICY_NAMES:
            res = run_engine(prog, case, warp_size, policy)
            out = res.buffers["out"]
            assert np.array_equal(out, ref_out), \
                f"warp size {warp_size}, {policy}: " + first_mismatch(out, ref_out)
            icount = by_thread(res.thread_icount, case, warp_size)
            if ref_icount is None:
                ref_icount = icount
            assert np.array_equal(icount, ref_icount), \
                f"warp size {warp_size}, {policy}: per-thread instruction counts changed"


# ------------------------------------------------------------------ (e) stack depth

def _max_depth_over_configs(prog: Program, case: Case) -> tuple[int, str]:
    worst, where = -1, ""
    for warp_size in WARP_SIZES:
        for policy in POLICY_NAMES:
            res = run_engine(prog, case, warp_size, policy)
            d = int(res.max_stack_depth.max())
            if d > worst:
                worst, where = d, f"warp size {warp_size}, {policy}"
    return worst, where


@given(cases(loops=False, nested_exits=False))
def test_stack_depth_bounded_by_nesting_without_loops_or_nested_exits(case):
    """(e) on the programs where the engine meets it today: if/else, else-if chains, early exits
    at the top level, barriers."""
    prog = assemble(case)
    depth, where = _max_depth_over_configs(prog, case)
    assert depth <= case.kernel.nesting_depth, \
        f"{where}: stack depth {depth} > static nesting depth {case.kernel.nesting_depth}"


@given(cases())
@example(Case(kernel_from_stmts([("while", 0, [("assign", 0, "add", 0, ("i", 1))])]), grid=1, block=5,
              inp=np.array([1, 1, 1, 2, 3], dtype=np.uint32)))       # loop_frame_growth
def test_stack_depth_bounded_by_nesting(case):
    prog = assemble(case)
    depth, where = _max_depth_over_configs(prog, case)
    assert depth <= case.kernel.nesting_depth, \
        f"{where}: stack depth {depth} > static nesting depth {case.kernel.nesting_depth}"


# ------------------------------------------------------------------ (f) device functions

def check_call_masks(res: RunResult, prog: Program) -> int:
    """Per warp, for every call that lanes executed: the next instruction is the callee's entry
    with exactly the calling lanes; until the warp is back at the return pc, every instruction
    belongs to a function (no caller instruction runs while lanes wait at the callee's exit) and
    runs a subset of the calling lanes; back at the return pc, the mask is the call's mask.
    Returns the number of calls checked."""
    in_func = (prog.code[:, E.F_FLAGS] & E.FL_IN_FUNC) != 0
    checked = 0
    for gid in np.unique(res.history[:, 0]):
        H = res.history[res.history[:, 0] == gid]
        for i, (_, pc, mask, ex) in enumerate(H):
            if prog.code[pc, E.F_OP] != E.OP_CALL or ex == 0:
                continue
            where = f"warp {gid}, call at pc {pc} (history row {i})"
            assert H[i + 1, 1] == prog.code[pc, E.F_TARGET] and H[i + 1, 2] == ex, \
                f"{where}: the callee started at pc {H[i + 1, 1]} with {mask_bits(int(H[i + 1, 2]), 32)}"
            j = next(j for j in range(i + 1, len(H)) if H[j, 1] == pc + 1)
            inner = H[i + 1:j]
            assert in_func[inner[:, 1]].all(), f"{where}: caller code ran before the callee's lanes returned"
            assert not (inner[:, 2] & ~ex).any(), f"{where}: lanes that did not call ran in the callee"
            assert H[j, 2] == mask, \
                f"{where}: resumed with {mask_bits(int(H[j, 2]), 32)}, the call had {mask_bits(int(mask), 32)}"
            checked += 1
    return checked


@given(cases(calls=True), st.sampled_from(POLICY_NAMES), st.sampled_from(WARP_SIZES))
def test_calls_match_oracle_and_reconverge_exactly(case, policy, warp_size):
    prog = assemble(case)
    res = run_engine(prog, case, warp_size, policy)
    orc = run_oracle(prog, case.grid, case.block, ARGS, case.buffers(), warp_size=warp_size)
    got, want = res.buffers["out"], orc.buffers["out"]
    assert np.array_equal(got, want), "engine vs oracle: " + first_mismatch(got, want)
    ref = expected_outputs(case)
    assert np.array_equal(want, ref), "oracle vs kernelgen reference semantics: " + first_mismatch(want, ref)
    assert np.array_equal(by_thread(res.thread_icount, case, warp_size),
                          by_thread(orc.thread_icount, case, warp_size)), "per-thread instruction counts"
    check_reconvergence(res, prog)
    check_call_masks(res, prog)
