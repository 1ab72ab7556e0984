"""Clock domains and launch conditions: L2 and DRAM latencies are SM cycles plus nanoseconds on
the memory side's clocks; a plain launch finds the host's copies in L2, a profiled one (Nsight
Compute: caches flushed, SMs locked to base) finds every cache empty.  The H100's figures come
from tools/profiled_chase.py's recording."""
import json
from pathlib import Path

import numpy as np
import pytest

import simt_sim
from simt_sim.calibrate import microbench as MB
from simt_sim.errors import InputError
from simt_sim.programs import program_dir, program_dirs

ROOT = Path(__file__).resolve().parents[1]
CHASE = json.loads((ROOT / "programs/validation/v-lat-dram/reference/h100-profiled-chase.json").read_text())


def h100(*overrides):
    return simt_sim.load_config("h100", list(overrides))


def test_memory_latencies_are_cycles_plus_nanoseconds_at_the_sm_clock():
    boost, base = h100(), h100("clock_mhz=1590")
    # 1980 MHz: the values the plain clock spans were calibrated at (DRAM's without the refreshes'
    # 19.7 ns on average: 672 with them, as the chase)
    assert [boost.memory_latency(k) for k in ("l2.latency", "l2.host_copy_latency", "dram.latency")] == [278, 367, 633]
    # 1590 MHz: fewer cycles for the same nanoseconds
    assert [base.memory_latency(k) for k in ("l2.latency", "l2.host_copy_latency", "dram.latency")] == [248, 324, 536]
    assert boost.dram_bytes_per_cycle() == 1690.0
    assert base.dram_bytes_per_cycle() == pytest.approx(3346.2 * 1000 / 1590)
    # the SM-side parts do not scale
    assert base.get("memory.l1.latency") == boost.get("memory.l1.latency")


def test_the_simulated_chase_runs_at_the_clock_it_is_given():
    """The microbenchmark chases measure what the lowering computes, at either clock (an L2 hit's
    spread per SM and line and DRAM's refreshes, tested below, left out)."""
    for clock, l2, dram in ((1980, 278, 633), (1590, 248, 536)):
        cfg = h100(f"clock_mhz={clock}", "num_sms=1", "memory.l2.latency_spread_ns=[]",
                   "memory.dram.refresh_interval_ns=0")
        assert MB.measure_chase(cfg, "l2") == l2
        assert MB.measure_chase(cfg, "dram") == dram


def test_first_touch_costs_the_host_copy_in_a_plain_launch_and_dram_when_flushed():
    cfg = h100("num_sms=1")
    prog = MB._program("chase-dram")
    bufs = {"chain": np.zeros(MB.CHASE_NODES * MB.LINE // 8, np.uint64), "out": np.zeros(3, np.uint64)}
    bufs["chain"][:] = MB._chain_base(prog, bufs) + MB.LINE + 8 * np.arange(len(bufs["chain"]), dtype=np.uint64)

    def per_load(c):
        out = MB._single(c, prog, {k: v.copy() for k, v in bufs.items()}, ["out", "chain"])
        return (int(out[1]) - int(out[0])) / (MB.CHASE_N2 - MB.CHASE_N1)
    assert per_load(cfg) == 367                                   # plain: the copy left the chain in L2
    base = cfg.with_overrides(["memory.dram.refresh_interval_ns=0"])   # without the refreshes' waits
    assert per_load(base.with_overrides(["host.caches_flushed=true"])) == 633   # 141 + 248.5 ns at 1980 MHz
    assert per_load(base.under_profiler()) == 536                 # flushed and at 1590 MHz
    assert per_load(cfg.with_overrides(["host.caches_flushed=true"])) > 633


def test_a_config_without_host_copies_sends_first_touches_to_dram():
    cfg = simt_sim.load_config("a100")
    assert not cfg.get("memory.l2.host_copy_latency")
    assert cfg.miss_latency() == cfg.memory_latency("dram.latency") == cfg.get("memory.dram.latency")


def test_the_clocks_in_the_config_are_the_recorded_ones():
    plain = {round(s["sm_clock_mhz"]) for s in CHASE["plain"].values()}
    assert plain == {round(h100().get("clock_mhz"))}
    profiled = [v for s in CHASE["under_ncu"]["default"].values()
                for v in s["ncu"]["gpc__cycles_elapsed.avg.per_second"]]
    # ncu reports the locked base clock a little low (1583-1587 MHz for 1590)
    assert np.median(profiled) / 1e6 == pytest.approx(h100().get("host.profiler_clock_mhz"), rel=0.005)
    # the memory side keeps its clocks under ncu's clock control
    for clocks in ("default", "clock-none"):
        lts = [v for s in CHASE["under_ncu"][clocks].values() for v in s["ncu"]["lts__cycles_elapsed.avg.per_second"]]
        assert np.median(lts) / 1e6 == pytest.approx(1705, rel=0.01)


def test_under_profiler_flushes_and_locks_the_clock():
    cfg = h100().under_profiler()
    assert cfg.get("host.caches_flushed") is True and cfg.get("clock_mhz") == 1590
    assert h100("host.profiler_clock_mhz=0").under_profiler().get("clock_mhz") == 1980


def test_validate_compares_ncu_cycles_with_a_profiled_run_and_spans_with_a_plain_one():
    from simt_sim.calibrate.compare import validate_program
    row = validate_program(ROOT / "programs" / "validation" / "v-lat-dram", isa="sass")
    assert row["profiled_clock_mhz"] == 1590
    # 32 flushed loads at 1590 MHz: the whole kernel within 5% of ncu's cycles (it was -30% when
    # the model ran ncu's launches with the plain launches' L2 and clock)
    assert abs(row["cycle_error_pct"]) < 5
    span = row["clock_spans"]["clk"]
    assert abs(span["sim"] - span["hw"]) / span["hw"] < 0.02    # the plain span: host-copied lines


@pytest.mark.parametrize("item,message", [
    ("memory.dram.latency_ns=-1", "must be between 0"),
    ("clock_mhz=0", "must be positive"),
    ("host.caches_flushed=3", "bool"),
])
def test_bad_clock_and_condition_values_are_input_errors(item, message):
    with pytest.raises(InputError, match=message):
        h100(item)


def test_the_host_copy_latency_is_what_scattered_first_touches_cost_on_the_h100():
    """tools/host_copy_strides.py: lines at least 256 B apart cost the host copy's latency on
    their first touch (353-367 cycles at 1980 MHz); lines 128 B apart cost an L2 hit."""
    rec = json.loads((ROOT / "programs/validation/v-lat-dram/reference/h100-host-copy-strides.json").read_text())["per_load"]
    cfg = h100()
    for stride, states in rec.items():
        fresh, warm = np.median(states["fresh"]), np.median(states["warm"])
        assert warm == pytest.approx(cfg.memory_latency("l2.latency"), rel=0.05)
        if int(stride.split()[0]) >= 256:
            assert fresh == pytest.approx(cfg.memory_latency("l2.host_copy_latency"), rel=0.05)
        else:
            assert fresh == pytest.approx(warm, rel=0.03)


def test_one_more_kernel_in_a_stream_costs_about_what_the_h100_measures_at_its_plain_clock():
    """tools/launch_sequence.py: back-to-back empty kernels in one stream cost 1.96-2.02 us each on
    the H100 (events, plain launches at 1980 MHz); the model charges kernel_launch_latency per
    launch of a stream, in SM cycles (calibrated on ncu's 1590 MHz): 1.82 us, 9% short."""
    rec = json.loads((ROOT / "programs/probes/t-launch-1/reference/h100-launch-sequence.json").read_text())
    cfg = h100()
    prog = simt_sim.load_program(str(ROOT / "programs/probes/launch-empty/kernel.ptx"))
    cycles = [simt_sim.simulate([simt_sim.Launch(prog, 1, 32, ["out"]) for _ in range(n)], {"out": np.zeros(32, np.uint32)},
                               cfg).cycles for n in (1, 9)]
    per_kernel_ns = (cycles[1] - cycles[0]) / 8 * 1000 / cfg.get("clock_mhz")
    assert per_kernel_ns == pytest.approx(1000 * rec["us_per_further_kernel"], rel=0.12)


def test_a_reference_that_recorded_ncus_clock_is_simulated_at_that_clock():
    from simt_sim.calibrate.compare import profiled_clock_mhz
    from simt_sim.calibrate.record import NCU_METRICS
    assert "gpc__cycles_elapsed.avg.per_second" in NCU_METRICS         # hw record keeps it from now on
    ncu = [{"gpc__cycles_elapsed.avg.per_second": hz} for hz in (1.583e9, 1.587e9, 1.585e9)]
    assert profiled_clock_mhz(ncu) == 1585
    assert profiled_clock_mhz([{"sm__cycles_elapsed.max": 3597.0}]) is None     # older references
    assert h100().under_profiler(1585).get("clock_mhz") == 1585
    assert h100().under_profiler(None).get("clock_mhz") == 1590


SPREAD = json.loads((ROOT / "programs/validation/v-lat-l2/reference/h100-latency-spread.json").read_text())


def l2_hit_latencies(cfg, sms, lines):
    """Cycles from issue to data of one-sector ld.global.cg L2 hits, per SM and line (each line
    is loaded once first so that the timed access hits), with the engine's own hit model."""
    from simt_sim.engine.cycle.caches import global_access, make_mem_timing
    from simt_sim.machine.tables import machine_scalars
    tc, tf = machine_scalars(cfg, max(sms) + 1, 64, 64, record_trace=False)
    mt = make_mem_timing(tc, max(sms) + 1)
    scratch = np.zeros(4, np.int64), np.zeros(4, np.int64), np.zeros(7, np.int64)   # ways in L1, L2; sector counts
    per_line = cfg.get("memory.line_bytes") // cfg.get("memory.sector_bytes")
    out = np.zeros((len(sms), len(lines)))
    cycle = 0
    for _ in range(2):
        for i, sm in enumerate(sms):
            for j, line in enumerate(lines):
                sectors = np.array([line * per_line], np.int64)
                cycle += 1000                  # far apart: no queueing
                ready = global_access(mt, tc, tf, sm, cycle, sectors, 1, False, True, 0, *scratch)
                out[i, j] = ready - cycle
    return out


def test_an_l2_hit_strays_by_an_offset_fixed_per_sm_and_line():
    """memory.l2.latency_spread_ns: one SM reading one line always waits the same; over many
    pairs the waits spread as the H100's 132 SMs' chases through L2 did (tools/latency_spread.py:
    per-pair repeat correlation 0.98), around the calibrated mean."""
    cfg = h100()
    lines = np.arange(0, 4096 * 7, 7)
    lat = l2_hit_latencies(cfg, [0, 1, 57], lines)
    again = l2_hit_latencies(cfg, [0, 1, 57], lines)
    assert np.array_equal(lat, again)                          # fixed per pair, run after run
    assert not np.array_equal(lat[0], lat[1])                  # but not the same for every SM
    mean = cfg.memory_latency("l2.latency")
    assert abs(lat.mean() - mean) < 1.0                        # the spread has no mean of its own
    recorded = SPREAD["chase_k1"]["l2"]
    offsets = np.sort(lat.ravel() - mean)
    q = np.percentile(offsets, (np.arange(32) + 0.5) * 100 / 32)
    assert np.abs(q - np.array(recorded["quantiles_less_mean"])).max() <= 1.5   # rounding to whole cycles
    assert lat.std() == pytest.approx(recorded["std"], rel=0.15)
    # without a spread every hit costs the mean
    flat = l2_hit_latencies(h100("memory.l2.latency_spread_ns=[]"), [0, 1], lines[:64])
    assert np.all(flat == mean)


def test_l2_spread_lists_are_checked():
    with pytest.raises(InputError, match="latency_spread_ns.*must hold"):
        h100("memory.l2.latency_spread_ns=[1, 2, 3]")
    with pytest.raises(InputError, match="latency_spread_ns.*numbers"):
        h100("memory.l2.latency_spread_ns=[1, x]")
    assert h100("memory.l2.latency_spread_ns=[-4, 4]").latency_spread("l2.latency")[::16] == [-4 * 1.98, 4 * 1.98]


def test_workload_block_spans_are_recorded_in_one_condition_the_warm_launch():
    """tools/span_conditions.py: the H100's block spans depend on what L2 holds when a workload
    starts (w-cslow-c1-w4's two 4 MiB buffers: 1.8x longer after L2 is emptied than after a launch
    on the same addresses), so every workload reference holds the clocks of the recorded warm run,
    the condition the model's plain launch stands for (host-copied inputs in L2).  Concurrent
    streams excepted: which released kernel the H100 starts first varies from run to run, so
    w-fusion-streams holds a queued `hw record` run whose kernels started in launch order."""
    from simt_sim.frontend.manifest import load_manifest
    rec = json.loads((ROOT / "programs/validation/v-lat-l2/reference/h100-span-conditions.json").read_text())["spans"]
    programs = program_dirs(pattern="w-*", needs="reference/h100.json")
    assert len(programs) == len(rec) == 53
    concurrent = []
    for d in programs:
        ref = json.loads((d / "reference" / "h100.json").read_text())
        m = load_manifest(str(d))
        warm = rec[d.name]["warm_clocks"]
        assert warm["buffer"] == m.clock_outputs[0]
        if m.concurrent_streams:
            concurrent.append(d.name)
            assert "queued launch" in ref["provenance"]["clock_outputs"]
            continue
        assert ref["outputs"][warm["buffer"]] == {"dtype": warm["dtype"], "hex": warm["hex"]}, d.name
        assert "warm launch" in ref["provenance"]["clock_outputs"]
    assert concurrent == ["w-fusion-streams"]
    cslow = rec["w-cslow-c1-w4"]
    assert cslow["flushed"]["max"] > 1.7 * cslow["warm"]["max"]


def dram_latencies(cfg, lines, cycles):
    """Cycles from issue to data of one-sector ld.global.cg DRAM loads of `lines`, each at its
    cycle of `cycles`, on SM 0 (a fresh memory model for each: every load misses L2)."""
    from simt_sim.engine.cycle.caches import global_access, make_mem_timing
    from simt_sim.machine.tables import machine_scalars
    tc, tf = machine_scalars(cfg, 1, 64, 64, record_trace=False)
    scratch = np.zeros(4, np.int64), np.zeros(4, np.int64), np.zeros(7, np.int64)   # ways in L1, L2; sector counts
    per_line = cfg.get("memory.line_bytes") // cfg.get("memory.sector_bytes")
    out = np.zeros(len(lines))
    for i, (line, cycle) in enumerate(zip(lines, cycles)):
        mt = make_mem_timing(tc, 1)
        sectors = np.array([line * per_line], np.int64)
        out[i] = global_access(mt, tc, tf, 0, int(cycle), sectors, 1, False, True, 0, *scratch) - cycle
    return out


def test_a_dram_load_comes_near_or_far_by_its_4_kib_block_and_may_wait_for_a_refresh():
    """memory.dram.latency_spread_ns and refresh_* (tools/dram_lines.py, recorded on the H200):
    with the spread the fit gives, by its 4 KiB block a line comes near or far, 190 cycles apart
    (the H100's per-line medians 580 and 770 at 1980 MHz, about half each); and a share of the
    loads wait for a refresh, lines that differ only in address bits 7 and 9 together.  The mean over many lines and times stays
    the one the DRAM chase calibrated (141 cycles + 268.2 ns)."""
    cfg = h100("host.caches_flushed=true", "memory.dram.latency_spread_ns=[-48,48]")   # h100.yaml: [] (docs/timing.md)
    quiet = cfg.with_overrides(["memory.dram.refresh_interval_ns=0"])
    blocks = np.arange(2000) * 32 + 5                          # a line of each of 2,000 4 KiB blocks
    lat = dram_latencies(quiet, blocks, np.full(len(blocks), 10_000))
    near, far = np.unique(lat)
    assert far - near == pytest.approx(2 * 48 * 1.98, abs=1)
    assert 0.4 < np.mean(lat == far) < 0.6
    within = dram_latencies(quiet, np.arange(32) + 64 * 32, np.full(32, 10_000))
    assert len(np.unique(within)) == 1                         # one 4 KiB block: one place

    rng = np.random.default_rng(1)
    lines, cycles = rng.integers(0, 1 << 24, 20_000), rng.integers(10_000, 10_000_000, 20_000)
    with_refresh = dram_latencies(cfg, lines, cycles)
    excess = with_refresh - dram_latencies(quiet, lines, cycles)
    share = cfg.get("memory.dram.refresh_ns") / cfg.get("memory.dram.refresh_interval_ns")
    assert np.mean(excess > 0) == pytest.approx(share, abs=0.01)
    assert excess.max() <= round(cfg.get("memory.dram.refresh_ns") * 1.98) + 1
    chase_mean = 141 + 268.2 * 1.98
    assert with_refresh.mean() == pytest.approx(chase_mean, abs=6)

    def refresh_waits(c, line, times):
        return dram_latencies(c, [line] * len(times), times) - dram_latencies(quiet, [line] * len(times), times)
    own_phases = cfg.with_overrides(["memory.dram.refresh_units=0"])   # every refresh at its own phase
    line = 4096 * 9 + 16                                       # line bits 0, 2 = address bits 7, 9
    times = np.arange(10_000, 50_000, 50)
    own = refresh_waits(own_phases, line, times)
    assert own.any()
    for partner, together in ((line ^ 1, True), (line ^ 4, True), (line ^ 2, False), (line ^ 8, False)):
        assert np.array_equal(refresh_waits(own_phases, partner, times), own) == together, partner
    # refresh_units (--fit's 17; h100.yaml 0): the refreshes of 100 lines 4 KiB apart run at no
    # more than that many phases
    grouped = cfg.with_overrides(["memory.dram.refresh_units=17"])
    phases = {tuple(refresh_waits(grouped, 32 * k, times)) for k in range(100)}
    assert 1 < len(phases) <= 17
    assert len({tuple(refresh_waits(cfg, 32 * k, times)) for k in range(100)}) > 17


def test_a_host_copied_lines_first_touch_comes_from_the_near_or_the_far_partition():
    """t-ldg-path: one SM's first touches of host-copied lines cost 297 or 474 cycles by their
    8 KiB block.  The model (sass.memory.l2.host_copy_far_ns) gives a line the host copy's mean
    latency less or plus half the far partition's extra: the two blocks of each 16 KiB pair sit in
    different partitions, every line of a block with its block, the two SMs of a TPC alike and
    the next TPC the other way round, and blocks 16 KiB apart fall on both sides."""
    from simt_sim.engine.cycle.caches import host_copy_offset
    from simt_sim.machine.tables import machine_scalars
    cfg = h100().for_sass()
    tc, _ = machine_scalars(cfg, 132, 64, 64, False, sass=True)
    half = cfg.cycles_of_ns(89.6) / 2
    lines = 8192 // 128                                   # lines of a block
    side = {sm: [host_copy_offset(tc, b * lines + 5, sm) for b in range(64)] for sm in (0, 1, 2, 3)}
    assert all(o in (-half, half) for offsets in side.values() for o in offsets)
    assert all(side[0][b] == -side[0][b + 1] for b in range(0, 64, 2))
    assert [host_copy_offset(tc, 7 * lines + i, 0) for i in range(lines)] == [side[0][7]] * lines
    assert side[1] == side[0] and side[3] == side[2] == [-o for o in side[0]]
    strided = [host_copy_offset(tc, 2 * k * lines, 0) for k in range(64)]
    assert 16 <= strided.count(half) <= 48


@pytest.mark.parametrize("name", ["w-regroup-lbm-base", "w-regroup-lbm-index", "w-regroup-lbm-permuted"])
def test_lbms_warm_block_spans_follow_its_gathers_slowest_partition(name):
    """w-regroup-lbm-*'s gathers are chains of dependent first touches of host-copied lines; a
    warp waits for its slowest line and a block for its slowest warp, so the near and far L2
    partitions (sass.memory.l2.host_copy_far_ns) lengthen the longest block span
    over one mean latency: within 10% of the H100's warm span (6,344 / 6,044 / 6,084 cycles),
    where the one mean comes 6-11% short."""
    from simt_sim.calibrate.compare import clock_spans, recorded_array
    pdir = program_dir(name)
    ref = json.loads((pdir / "reference" / "h100.json").read_text())
    hw = max(clock_spans(recorded_array(ref["outputs"]["clk"])))

    def longest(*overrides):
        res = simt_sim.run_program(str(pdir), isa="sass", overrides=list(overrides))
        return max(clock_spans(res.outputs["clk"]))
    split, one = longest(), longest("sass.memory.l2.host_copy_far_ns=0")
    assert split == pytest.approx(hw, rel=0.10)
    assert split > one * 1.03 and one < hw * 0.95
