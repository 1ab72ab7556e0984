"""SASS timing from ptxas's control codes (engine/cycle/issue.py, scoreboard.py, fetch.py):
stall counts, dependence barriers and wait masks, taken branches, instruction fetch and block
starts, on the t-* programs' own cubins (no GPU needed)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from simt_sim.errors import InputError
from simt_sim.frontend.manifest import load_manifest
from simt_sim.frontend.sass import ControlCodes
from simt_sim.frontend.sass_lower import load_kernel
from simt_sim.isa import encoding as E
from simt_sim.machine import layout as L
from simt_sim.machine.config import load_config
from simt_sim.run.timed import manifest_launches, simulate
from simt_sim.programs import program_dir

ROOT = Path(__file__).resolve().parent.parent
# the control codes alone: no fetch model, no extra taken-branch cost
BARE = ["sass.fetch.enabled=false", "sass.taken_branch_latency=0",   # no waits beside the codes
        "sass.constants.imc_miss_ns=0", "sass.constants.ldc_miss_ns=0"]


def sass_run(name: str, sets: list[str]):
    m = load_manifest(str(program_dir(name)))
    prog = load_kernel(str(m.kernel_file), m.kernel, "sass")
    res = simulate(manifest_launches(m, prog, "sass"), {s.name: s.make() for s in m.buffers},
                   load_config(m.config, (m.overrides or []) + sets), record_trace=True)
    return prog, res


def warp_issues(res, gid: int):
    t = res.trace
    return t[t[:, L.TR_GID] == gid]


def control(prog, pc: int) -> int:
    return int(prog.code[pc, E.F_CTRL])


def test_rows_carry_the_control_code_of_their_instruction():
    prog, _ = sass_run("t-clock-read", BARE)
    assert (prog.code[:, E.F_CTRL] >= 0).all()
    m = load_manifest(str(ROOT / "programs" / "probes" / "t-clock-read"))
    ptx = load_kernel(str(m.kernel_file), m.kernel, "ptx")
    assert (ptx.code[:, E.F_CTRL] == -1).all()          # PTX has none: the register scoreboard times it
    # the row's field decodes to what the disassembly prints
    text = ControlCodes.from_high_word(control(prog, 1) << 41).text()
    assert text.endswith(f"S{control(prog, 1) & E.CTRL_STALL_MASK:02d}")


def test_a_lone_warp_issues_its_stall_count_apart():
    """t-diverge's single warp: between two issues that wait on no barrier and follow no taken
    branch, exactly the first one's stall count passes; after a BSYNC that completes its barrier,
    the reconvergence latency when that is longer."""
    prog, res = sass_run("t-diverge", BARE)
    reconverge = load_config("h100").get("sass.reconverge_latency")
    t = warp_issues(res, 0)
    checked = bsyncs = 0
    for a, b in zip(t[:-1], t[1:]):
        pa, pb = int(a[L.TR_PC]), int(b[L.TR_PC])
        if pb != pa + 1 or (control(prog, pb) >> E.CTRL_WAIT_SHIFT) & 0x3F:
            continue
        stall = max(control(prog, pa) & E.CTRL_STALL_MASK, 1)
        if prog.texts[pa].startswith("BSYNC"):
            stall = max(stall, reconverge)
            bsyncs += 1
        assert b[L.TR_CYCLE] - a[L.TR_CYCLE] == stall, prog.texts[pa]
        checked += 1
    assert checked > 1000 and bsyncs >= 64 and reconverge > 5


def test_a_wait_mask_holds_the_instruction_until_its_barrier_clears():
    """t-sched-5w: the LDG sets write barrier 2; the FADD waiting on it issues when the load's
    data arrives, not at the LDG's stall count."""
    prog, res = sass_run("t-sched-5w", BARE)
    t = warp_issues(res, 0)
    ldg = next(i for i in range(len(t)) if prog.texts[t[i, L.TR_PC]].startswith("LDG"))
    ctrl_ldg, ctrl_next = control(prog, t[ldg, L.TR_PC]), control(prog, t[ldg + 1, L.TR_PC])
    wbar = (ctrl_ldg >> E.CTRL_WBAR_SHIFT) & 7
    assert wbar != E.CTRL_NO_BARRIER and (ctrl_next >> E.CTRL_WAIT_SHIFT) >> wbar & 1
    assert t[ldg + 1, L.TR_CYCLE] == t[ldg, L.TR_READY] > t[ldg, L.TR_CYCLE] + 100   # a DRAM load


def test_control_codes_off_times_sass_by_the_register_scoreboard():
    prog, on = sass_run("t-diverge", BARE)
    _, off = sass_run("t-diverge", BARE + ["sass.control_codes=false"])
    assert on.cycles != off.cycles
    t = warp_issues(off, 0)       # off: back-to-back dependent FFMAs wait the fp32 unit's latency
    ffma = [i for i in range(1, len(t)) if prog.texts[t[i, L.TR_PC]].startswith("FFMA R10, R10")
            and t[i - 1, L.TR_PC] == t[i, L.TR_PC] - 1]
    latency = load_config("h100").for_sass().get("units.fp32.latency")       # sass.units over units
    assert ffma and all(t[i, L.TR_CYCLE] - t[i - 1, L.TR_CYCLE] == latency for i in ffma)


def test_a_taken_branch_costs_the_redirect_latency():
    prog, bare = sass_run("t-diverge", BARE)
    _, taken = sass_run("t-diverge", ["sass.fetch.enabled=false", "sass.taken_branch_latency=16"])
    for res, gap in ((bare, 5), (taken, 16)):          # @P1 BRA back to the loop head: S05
        t = warp_issues(res, 0)
        loops = [i for i in range(1, len(t)) if prog.texts[t[i - 1, L.TR_PC]] == "@P1 BRA 0xf0"
                 and t[i, L.TR_PC] < t[i - 1, L.TR_PC]]
        assert len(loops) == 63
        assert all(t[i, L.TR_CYCLE] - t[i - 1, L.TR_CYCLE] == gap for i in loops)


def test_straight_line_code_streams_at_the_l1_line_rate_until_the_l0_holds_it():
    """t-icache-512: 512 FFMAs twice.  The first pass fetches every line (line_cycles per 8
    instructions), the second finds them in the L0 and issues one per cycle, once the LDC of the
    FFMAs' factors at its start has come (30 cycles; the H100's second pass 1.051 cycles an
    instruction, 538 in all)."""
    _, res = sass_run("t-icache-512", ["sass.fetch.l1.line_cycles=24"])
    clk = res.buffers["clk"].view("int64")
    cold, warm = (clk[1] - clk[0]) / 512, (clk[3] - clk[2]) / 512
    assert cold == pytest.approx(24 / 8, rel=0.03)
    assert 512 + 26 <= warm * 512 <= 512 + 36


def test_blocks_start_one_interval_apart_on_an_sm():
    _, a = sass_run("t-launch-1056", [])
    _, b = sass_run("t-launch-1056", ["sass.block_launch_interval=200"])
    # 8 blocks per SM: the last starts 7 intervals after the first
    assert b.cycles - a.cycles == pytest.approx(7 * (200 - 126), abs=40)


def test_fetch_line_must_hold_whole_instructions():
    with pytest.raises(InputError, match="multiple of 16"):
        sass_run("t-clock-read", ["sass.fetch.line_bytes=24"])


def scheduler_order(policy, ages, last, yielded=0, last_cycle=-1, cycle=10, rr_from=-1, held_at=-2, passes=None,
                    not_ready=(), slots_used=None, block_ages=None):
    """The order `policy` gives the warps of one scheduler (slots 0..n-1, `ages` oldest first) at
    `cycle`, when warp `last` issued last, at `last_cycle` (or was held at `held_at`), grr's
    round robin starts from `rr_from`, gwf's warps stand at `passes`, the warps of `not_ready`
    wait at a barrier, the slots from `slots_used` on are taken to be empty and the warps' blocks
    have `block_ages` (ogr)."""
    import numpy as np
    from simt_sim.engine.cycle.scheduler import candidates
    from simt_sim.machine.state import make_schedulers
    n = len(ages)
    wf = np.zeros((n, len(L.WARP_FIELDS)), np.int64)
    wf[:, L.WF_OCCUPIED] = 1
    wf[:, L.WF_STATUS] = L.W_READY
    wf[list(not_ready), L.WF_STATUS] = L.W_BARRIER
    wf[last, L.WF_YIELDED] = yielded
    wf[last, L.WF_LAST_CYCLE] = last_cycle
    order = np.array(ages, np.int64).reshape(1, 1, n)
    sched = make_schedulers(1, 1)
    sched[0, 0, L.SC_N_ORDER] = n
    sched[0, 0, L.SC_SLOTS_USED] = n if slots_used is None else slots_used
    sched[0, 0, L.SC_LAST] = last
    sched[0, 0, L.SC_RR_FROM] = rr_from
    sched[0, 0, L.SC_HELD_AT] = held_at
    wf[:, L.WF_PASS] = passes if passes is not None else 0
    wf[:, L.WF_BLOCK_AGE] = block_ages if block_ages is not None else 0
    out = np.zeros(2 * n + 2, np.int64)
    m = candidates(L.SCHEDULER_NAMES.index(policy), 1, order, sched, wf, 8, cycle, 0, 0, 1, n, out)
    return list(out[:m])


def test_gty_keeps_the_last_warp_unless_it_yielded_then_takes_the_youngest():
    assert scheduler_order("gty", [0, 1, 2, 3], last=1, yielded=0) == [1, 3, 2, 0]
    assert scheduler_order("gty", [0, 1, 2, 3], last=1, yielded=1) == [3, 2, 0, 1]
    assert scheduler_order("gty", [2, 0, 3, 1], last=0, yielded=0) == [0, 1, 3, 2]


def test_grr_keeps_a_warp_that_issues_back_to_back_then_goes_round_robin():
    # warp 2 issued in the previous cycle: it stays first, then the slots after it
    assert scheduler_order("grr", [0, 1, 2, 3], last=2, last_cycle=9, cycle=10) == [2, 3, 0, 1]
    # it paused (issued two cycles ago): the turn passes to the next slot, whatever the ages
    assert scheduler_order("grr", [0, 1, 2, 3], last=2, last_cycle=8, cycle=10) == [3, 0, 1, 2]
    # warp 0 was passed over for a busy pipe when warp 2 issued: the round starts from it
    assert scheduler_order("grr", [0, 1, 2, 3], last=2, last_cycle=8, cycle=10, rr_from=0) == [0, 1, 2, 3]
    # warp 0 was passed over for a busy pipe while warp 2 issues on: warp 0 goes first when its
    # pipe frees, warp 2 keeps the turn otherwise, and every slot is still listed once
    assert scheduler_order("grr", [0, 1, 2, 3], last=2, last_cycle=9, cycle=10, rr_from=0) == [0, 2, 1, 3]
    assert scheduler_order("grr", [0, 1, 2, 3], last=3, last_cycle=9, cycle=10, rr_from=1) == [1, 3, 2, 0]
    # warp 2 was held a cycle by a register-file write conflict: it keeps the turn
    assert scheduler_order("grr", [0, 1, 2, 3], last=2, last_cycle=5, cycle=10, held_at=9) == [2, 3, 0, 1]
    assert scheduler_order("grr", [3, 2, 1, 0], last=2, last_cycle=8, cycle=10) == [3, 0, 1, 2]
    assert scheduler_order("lrr", [0, 1, 2, 3], last=2, last_cycle=9, cycle=10) == [3, 0, 1, 2]


def test_round_robin_lists_only_the_warps_that_may_issue_in_the_slots_in_use():
    """Leaving out warps that cannot issue (here at a barrier) and the slots past the highest in
    use gives the same choices as listing every slot (benchmarks/timing_speed.py: 1.2x faster
    with grr, cycles identical)."""
    assert scheduler_order("lrr", [0, 1, 2, 3], last=0, last_cycle=9, cycle=10, not_ready=(1,)) == [2, 3, 0]
    assert scheduler_order("grr", [0, 1, 2, 3], last=2, last_cycle=9, cycle=10, not_ready=(1,)) == [2, 3, 0]
    # the warp that issued last now waits: not listed, the round goes on after it
    assert scheduler_order("grr", [0, 1, 2, 3], last=2, last_cycle=9, cycle=10, not_ready=(2,)) == [3, 0, 1]
    # the warp passed over for its pipe now waits: the one issuing back to back goes first
    assert scheduler_order("grr", [0, 1, 2, 3], last=2, last_cycle=9, cycle=10, rr_from=0, not_ready=(0,)) == [2, 1, 3]
    # slots 2 and 3 empty: after slot 1 the round wraps to slot 0
    assert scheduler_order("grr", [0, 1, 2, 3], last=1, last_cycle=8, cycle=10, slots_used=2) == [0, 1]
    assert scheduler_order("two-level", [0, 1, 2, 3], last=0, last_cycle=8, cycle=10, slots_used=3) == [1, 2, 0]


def test_ogr_takes_the_oldest_blocks_warps_first_round_robin_within_a_block():
    blocks = [8, 0, 8, 4]          # slots 1, 3 and 0/2 hold warps of three blocks, the oldest first
    # the oldest block's warps first, each block's in grr's order (3, 0, 1, 2)
    assert scheduler_order("ogr", [0, 1, 2, 3], last=2, last_cycle=8, cycle=10, block_ages=blocks) == [1, 3, 0, 2]
    # a warp still issuing back to back keeps its turn, as in grr, with or without a yield
    assert scheduler_order("ogr", [0, 1, 2, 3], last=2, last_cycle=9, cycle=10, block_ages=blocks) == [2, 1, 3, 0]
    assert scheduler_order("ogr", [0, 1, 2, 3], last=2, last_cycle=9, cycle=10, yielded=1,
                           block_ages=blocks) == [2, 1, 3, 0]
    # one block: grr's order
    assert scheduler_order("ogr", [0, 1, 2, 3], last=2, last_cycle=8, cycle=10) == [3, 0, 1, 2]


def test_awf_takes_the_block_that_issued_least_unless_the_last_instruction_yielded():
    blocks, passes = [8, 0, 8, 4], [20, 30, 20, 15]     # a block's pass is kept in each of its warps
    # no yield hint: grr's order (3, 0, 1, 2), stably sorted by the blocks' passes
    assert scheduler_order("awf", [0, 1, 2, 3], last=2, last_cycle=8, cycle=10, passes=passes,
                           block_ages=blocks) == [3, 0, 2, 1]
    # a warp still issuing back to back keeps its turn
    assert scheduler_order("awf", [0, 1, 2, 3], last=2, last_cycle=9, cycle=10, passes=passes,
                           block_ages=blocks) == [2, 3, 0, 1]
    # after a yield hint: ogr's order, the oldest block's warps first, the warp that yielded last
    # (even when it could issue on)
    assert scheduler_order("awf", [0, 1, 2, 3], last=3, last_cycle=8, cycle=10, yielded=1, passes=passes,
                           block_ages=blocks) == [1, 0, 2, 3]
    assert scheduler_order("awf", [0, 1, 2, 3], last=1, last_cycle=9, cycle=10, yielded=1, passes=passes,
                           block_ages=blocks) == [3, 2, 0, 1]
    # one block: grr's order, yield or not
    for kw in ({"last": 1, "last_cycle": 9, "yielded": 1}, {"last": 2, "last_cycle": 8, "rr_from": 0},
               {"last": 2, "last_cycle": 9}):
        assert scheduler_order("awf", [0, 1, 2, 3], cycle=10, **kw) == scheduler_order("grr", [0, 1, 2, 3], cycle=10, **kw)


def test_awf_charges_each_younger_block_a_longer_stride():
    import numpy as np
    from simt_sim.engine.cycle.scheduler import AGE_CATCH_UP, charge_age_pass
    from simt_sim.machine.state import make_schedulers
    wf = np.zeros((4, len(L.WARP_FIELDS)), np.int64)
    wf[:, L.WF_BLOCK_AGE] = [5, 5, 9, 12]                         # three blocks, oldest first
    order = np.arange(4, dtype=np.int64).reshape(1, 1, 4)
    sched = make_schedulers(1, 1)
    sched[0, 0, L.SC_N_ORDER] = 4
    for w in (0, 2, 3):
        charge_age_pass(order, sched, wf, w, 0, 0, 100000)         # age_weight_step 0.1
    # the block's pass moves on, in each of its warps
    assert wf[:, L.WF_PASS].tolist() == [L.PASS_ONE, L.PASS_ONE, int(L.PASS_ONE / 0.9), int(L.PASS_ONE / 0.8)]
    sched[0, 0, L.SC_VTIME] = 5000 * L.PASS_ONE                      # the oldest block comes back from a long wait
    charge_age_pass(order, sched, wf, 1, 0, 0, 100000)
    assert wf[:2, L.WF_PASS].tolist() == [(5000 - AGE_CATCH_UP + 1) * L.PASS_ONE] * 2


def test_gwf_goes_round_robin_but_after_a_yield_takes_the_warp_that_issued_least():
    passes = [30, 10, 20, 10]
    # no yield: grr's order (the warp issuing back to back, then the slots after it)
    assert scheduler_order("gwf", [0, 1, 2, 3], last=2, last_cycle=9, cycle=10, passes=passes) == [2, 3, 0, 1]
    assert scheduler_order("gwf", [0, 1, 2, 3], last=2, last_cycle=8, cycle=10, passes=passes) == [3, 0, 1, 2]
    # after a yield: by pass, a tie to the higher slot; the yielding warp does not issue on,
    # but one held a cycle by a dispatch stall keeps its turn
    assert scheduler_order("gwf", [0, 1, 2, 3], last=2, last_cycle=8, cycle=10, yielded=1, passes=passes) == [3, 1, 2, 0]
    assert scheduler_order("gwf", [0, 1, 2, 3], last=2, last_cycle=9, cycle=10, yielded=1, passes=passes) == [3, 1, 2, 0]
    assert scheduler_order("gwf", [0, 1, 2, 3], last=2, last_cycle=5, cycle=10, held_at=9, yielded=1,
                           passes=passes) == [2, 3, 1, 0]
    # a warp passed over for its busy pipe goes first
    assert scheduler_order("gwf", [0, 1, 2, 3], last=2, last_cycle=8, cycle=10, yielded=1, rr_from=0,
                           passes=passes) == [0, 3, 1, 2]


def test_gwf_charges_a_higher_slot_a_shorter_stride_and_allows_one_stride_of_catch_up():
    import numpy as np
    from simt_sim.engine.cycle.scheduler import charge_pass
    from simt_sim.machine.state import make_schedulers
    wf = np.zeros((8, len(L.WARP_FIELDS)), np.int64)
    sched = make_schedulers(1, 1)
    for w in (0, 7):
        charge_pass(sched, wf, w, 0, 0, 1, 8, 15000)           # slot_weight_step 0.015
    assert wf[0, L.WF_PASS] == L.PASS_ONE
    assert wf[7, L.WF_PASS] == L.PASS_ONE * 1000000 // 1105000   # slot 7 weighs 1.105
    sched[0, 0, L.SC_VTIME] = 50 * L.PASS_ONE                    # warp 3 comes back from a long wait
    charge_pass(sched, wf, 3, 0, 0, 1, 8, 0)
    assert wf[3, L.WF_PASS] == 50 * L.PASS_ONE                   # one stride behind, then charged


def test_the_yield_hint_is_what_the_disassembly_prints_as_y():
    prog, res = sass_run("t-diverge", BARE + ["scheduler.policy=gty"])
    yields = [pc for pc in range(len(prog.texts)) if not (control(prog, pc) >> E.CTRL_YIELD_SHIFT) & 1]
    assert prog.texts[yields[0]].startswith("IMAD.WIDE")         # B0-----:R-:W-:Y:S06 in the listing
    _, gto = sass_run("t-diverge", BARE)
    assert res.cycles == gto.cycles           # one warp: the policy cannot matter


@pytest.mark.parametrize("policy", ["gto", "lrr", pytest.param("oldest", marks=pytest.mark.slow),
                                    pytest.param("two-level", marks=pytest.mark.slow), "gty", "grr"])
def test_two_warps_on_one_subpartition_share_it_by_policy(policy):
    """t-sched-5w in SASS mode, fetch off: warps 0 and 4 share sub-partition 0, each streaming
    independent FFMAs (S01).  Round robin alternates them; greedy policies (grr too: each FFMA
    issues the cycle after the last) let one run ahead."""
    prog, res = sass_run("t-sched-5w", BARE + [f"scheduler.policy={policy}"])
    t = res.trace[(res.trace[:, L.TR_SP] == 0) & (res.trace[:, L.TR_SM] == 0)]
    ffma = t[[prog.texts[pc].startswith("FFMA") for pc in t[:, L.TR_PC]]]
    gids = ffma[:, L.TR_GID]
    switches = int((gids[1:] != gids[:-1]).sum())
    if policy in ("lrr", "two-level"):
        assert switches > 0.9 * len(gids)        # alternate nearly every issue
    else:
        assert switches < 0.05 * len(gids)       # one warp runs its stream, then the other
    first = int(gids[0])
    assert first == (4 if policy == "gty" else 0) or policy in ("lrr", "two-level")


def test_depbar_waits_until_at_most_n_copy_groups_are_incomplete():
    """s-async commits three cp.async groups (LDGDEPBAR), then `DEPBAR.LE SB0, 0x2`: it issues
    once the first group's copy has arrived, and a DEPBAR that keeps as many groups as were
    committed waits for none."""
    prog, res = sass_run("s-async", BARE)
    depbar = prog.texts.index("DEPBAR.LE SB0, 0x2")
    copies = [pc for pc, text in enumerate(prog.texts) if text.startswith(("LDGSTS", "@!P0 LDGSTS", "@P0 LDGSTS"))]
    commits = [pc for pc, text in enumerate(prog.texts) if text == "LDGDEPBAR"]
    assert len(commits) == 3 and copies[0] < commits[0] < copies[1]
    for gid in range(4 * 4):
        t = {int(r[L.TR_PC]): r for r in warp_issues(res, gid)}
        assert t[depbar][L.TR_CYCLE] >= t[copies[0]][L.TR_READY]          # group 1 is complete
    import numpy as np
    from simt_sim.engine.cycle.scoreboard import groups_done
    wf = np.zeros((1, len(L.WARP_FIELDS)), np.int64)
    wf[0, L.WF_GROUPS] = 3
    wf[0, L.WF_GROUP:L.WF_GROUP + 3] = (100, 200, 300)
    assert [groups_done(wf, 0, keep)[0] for keep in (0, 1, 2, 3)] == [300, 200, 100, 0]


def test_a_cp_async_copy_arrives_through_the_memory_model():
    """An LDGSTS's data come from where a load's would: s-async's copies read lines its host
    copied in (memory.l2.host_copy_latency, 372 cycles for h100, 88 less from the near L2 partition
    and 88 more from the far one: sass.memory.l2.host_copy_far_ns), so each copy's group completes
    some 280-480 cycles after it issues, not after the LD/ST unit's latency as before; a copy
    goes through the sub-partition's memory queue like an LDG."""
    prog, res = sass_run("s-async", BARE)
    copies = [pc for pc, text in enumerate(prog.texts) if "LDGSTS" in text]
    for gid in range(4 * 4):
        t = {int(r[L.TR_PC]): r for r in warp_issues(res, gid)}
        for pc in copies:
            assert 270 < t[pc][L.TR_READY] - t[pc][L.TR_CYCLE] < 500, (gid, prog.texts[pc])


def test_a_result_that_would_land_with_a_dmul_s_waits_a_cycle():
    """t-fp64-issue-d1-w1: each iteration's DMUL takes the register-file write port 6 cycles after
    issue (sass.write_port_latency; its dependants wait 8), the cycle in which the FMUL issued 2
    cycles after it (latency 4) would write; the register file takes one such write per cycle, so
    the FMUL is held a cycle: one dispatch stall per warp and iteration, as Nsight Compute counts
    on the H100, and nothing issues in that cycle."""
    prog, res = sass_run("t-fp64-issue-d1-w1", [])
    _, free = sass_run("t-fp64-issue-d1-w1", ["sass.write_port_units=[]"])
    iterations, warps = 256, 4
    assert (iterations - 1) * warps <= res.kernels[0]["stall_cycles"]["dispatch_stall"] <= iterations * warps
    assert free.kernels[0]["stall_cycles"]["dispatch_stall"] == 0
    assert res.cycles - free.cycles == pytest.approx(iterations, abs=2)
    dmul = next(pc for pc, text in enumerate(prog.texts) if text.startswith("DMUL"))
    t = warp_issues(res, 0)
    cycles = set(t[:, L.TR_CYCLE].tolist())
    for c in t[t[:, L.TR_PC] == dmul][1:, L.TR_CYCLE]:     # (the first iteration waits on fetch)
        assert c + 2 not in cycles and c + 3 in cycles       # the held slot, then the FMUL


@pytest.mark.parametrize("spare", [True, False])
def test_fmuls_spare_the_fma_heavy_pipe_for_the_imad(spare):
    """t-fmul{1,2}-imad-w1: UIADD3, one or two FMULs, then an IMAD, which only the FMA-heavy pipe
    (pipe 0) takes.  FMULs take the lite pipe first (h100.yaml's spare_first_pipe), so the IMAD
    waits a cycle after two FMULs (the second took the heavy pipe) and none after one, as the
    H100's iterations cost (29.5 / 30.5 cycles, t-fmul*-imad-w1).  Without the rule, the reverse."""
    waits = {}
    for k in (1, 2):
        prog, res = sass_run(f"t-fmul{k}-imad-w1", [f"sass.units.fp32.spare_first_pipe={str(spare).lower()}"])
        t = warp_issues(res, 0)
        text = [prog.texts[pc] for pc in t[:, L.TR_PC]]
        imads = [i for i, s in enumerate(text) if s.startswith("IMAD R")][2:]     # loop iterations
        assert all(t[i, L.TR_PIPE] == 0 and text[i - 1].startswith("FMUL") for i in imads)
        assert {int(t[i - 1, L.TR_PIPE]) for i in imads} == {(k + 1 - int(spare)) % 2}
        waits[k] = {int(t[i, L.TR_CYCLE] - t[i - 1, L.TR_CYCLE]) for i in imads}
    assert waits == ({1: {1}, 2: {2}} if spare else {1: {2}, 2: {1}})


def test_sass_latency_overrides_name_sass_families(tmp_path):
    """sass.latency_overrides (h100.yaml: F2F.f32, t-fp64-issue-cvt2-w1; S2R, probe sreg_delay;
    LDC, probe control_rate) time SASS rows only."""
    cfg = tmp_path / "c.yaml"
    cfg.write_text("name: c\nwarp_size: 32\nsass:\n  latency_overrides: {F2X.f64: 19}\n")
    with pytest.raises(InputError, match=r"c.yaml:4:\d+.*not a SASS family"):
        load_config(str(cfg))
    h100 = load_config("h100")
    assert h100.for_sass().get("latency_overrides") == {"F2F.f32": 19, "S2R": 23, "LDC": 30}
    assert "div.f32" in h100.get("latency_overrides")           # PTX runs keep theirs
    prog, res = sass_run("t-fp64-issue-cvt2-w1", [])
    _, plain = sass_run("t-fp64-issue-cvt2-w1", ["sass.latency_overrides={S2R: 23, LDC: 30}"])     # F2F.f32 off
    f2f = next(pc for pc, text in enumerate(prog.texts) if text.startswith("F2F.F32.F64"))
    ready = {int(r[L.TR_READY] - r[L.TR_CYCLE]) for r in warp_issues(res, 0) if r[L.TR_PC] == f2f}
    assert ready == {19}
    assert res.cycles - plain.cycles == pytest.approx(2 * 256, abs=4)    # on the loop's critical path


def test_sm_unit_cycles_name_sass_families_and_queue_the_four_sub_partitions(tmp_path):
    """sass.sm_unit_cycles (h100.yaml: {LDC: 2, S2R: 2, BAR: 2}, probe control_rate,
    probe tile_loop): keys are SASS families timed by a latency or barriers (a bad one is an
    error at its file:line:column, as are cycles outside 1..10^6); each family gets its own SM-wide
    unit, which takes one warp-instruction per `cycles` from all four sub-partitions, first come
    first served, and the result comes its latency after that."""
    cfg = tmp_path / "c.yaml"
    cfg.write_text("name: c\nwarp_size: 32\nsass:\n  sm_unit_cycles: {LDX: 2}\n")
    with pytest.raises(InputError, match=r"c.yaml:4:\d+.*not a SASS family timed by a latency or a barrier"):
        load_config(str(cfg))
    with pytest.raises(InputError, match="cycles must be an integer"):
        load_config("h100", ["sass.sm_unit_cycles={LDC: 0}"])
    with pytest.raises(InputError, match="'LDS', which is not a SASS family timed by a latency or a barrier"):
        load_config("h100", ["sass.sm_unit_cycles={LDS: 2}"])
    from simt_sim.engine.cycle.caches import make_mem_timing, sm_unit_start
    from simt_sim.machine.tables import machine_scalars, sm_unit_names
    h100 = load_config("h100")
    assert sm_unit_names(h100) == ["BAR", "LDC", "S2R"]
    tc, _ = machine_scalars(h100, 1, 1, 64, False, sass=True)
    mt = make_mem_timing(tc, 1)
    # four sub-partitions' LDCs issued in cycle 10, an S2R beside them, one LDC later
    ldc, s2r = sm_unit_names(h100).index("LDC"), sm_unit_names(h100).index("S2R")
    assert [sm_unit_start(mt, tc, 0, ldc, 10, 2) for _ in range(4)] == [10, 12, 14, 16]
    assert sm_unit_start(mt, tc, 0, s2r, 10, 2) == 10             # the S2R's unit is free
    assert sm_unit_start(mt, tc, 0, ldc, 30, 2) == 30             # the LDC unit is free again


def test_write_port_units_must_name_units(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("name: c\nwarp_size: 32\nsass:\n  write_port_units: [fp32, fma]\n")
    with pytest.raises(InputError, match=r"c.yaml:4:\d+.*names no unit: fma"):
        load_config(str(cfg))
    with pytest.raises(InputError, match="names no unit: sfu2"):
        load_config("h100", ["sass.write_port_units=[sfu2]"])


def test_warps_left_waiting_behind_a_held_or_full_dispatch_count_as_nsight_compute_counts_them():
    """The H100's Nsight Compute counts (programs/probes/t-fp64-issue-*/reference/h100.json) per
    warp-iteration: where the dispatch holds a warp for the register-file write port, every other
    ready warp of the scheduler waits in dispatch_stall too (8 warps per scheduler: 5.95 warp-cycles
    for about 0.85 held cycles; 4 warps: 3.03 for one); where another warp issued, a ready warp whose
    pipe is busy counts as not selected (the 8-warp FMUL loop: not_selected 51, math_pipe_throttle
    2.4).  The model attributes its warp-cycles the same way (issue.tally_waiting), within 15%: how
    often the 8 warps' DMULs meet depends on the phase they start in, which the prologue's first
    LDC moves (t-fp64-issue-d1: 6.07 without the constant caches, 6.40 with a 60-cycle LDC miss,
    6.71 with h100.yaml's 68)."""
    stalls = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"
    for name, warps in (("t-fp64-issue-d1", 32), ("t-fp64-issue-d1-w4", 16), ("t-fp64-issue-f0", 32)):
        ncu = json.loads((program_dir(name) / "reference" / "h100.json").read_text())["ncu"][0]
        per_iteration = ncu["smsp__inst_executed.sum"] / (warps * 256)
        _, res = sass_run(name, [])
        model = {k: v / (warps * 256) for k, v in res.kernels[0]["stall_cycles"].items()}
        h100 = {k: ncu[stalls.format(k)] * per_iteration for k in ("dispatch_stall", "not_selected", "math_pipe_throttle")}
        if name != "t-fp64-issue-f0":
            assert model["dispatch_stall"] == pytest.approx(h100["dispatch_stall"], rel=0.15), name
        assert h100["not_selected"] > 10 * h100["math_pipe_throttle"] and model["not_selected"] > 10 * model["math_pipe_throttle"]


def test_sass_runs_take_their_own_l1_latency():
    """sass.memory.l1.latency (h100.yaml 33, fitted to t-ldg-path's second pass: a dependent LDG
    through lines in L1 steps every 38 cycles on the H100) times SASS loads; PTX runs keep
    memory.l1.latency.  Each cycle of it is a cycle of every step of the chase."""
    h100 = load_config("h100")
    assert h100.get("memory.l1.latency") == 27 and h100.for_sass().get("memory.l1.latency") == 33
    assert h100.for_sass().get("memory.l2.latency") == h100.get("memory.l2.latency")   # the rest merged, kept

    def second_pass_steps(sets):
        _, res = sass_run("t-ldg-path", sets)
        clk = res.buffers["clk"].astype(np.int64)
        return np.diff(clk.reshape(4, 2, 33)[1:, 1], axis=1)[:, 1:]      # .ca, plain, .nc; load 0 left out
    steps, plain = second_pass_steps([]), second_pass_steps(["sass.memory.l1.latency=27"])
    assert steps.mean() == pytest.approx(38.2, abs=0.3)                   # the H100: 38.19
    assert ((steps - plain) == 6).all()
