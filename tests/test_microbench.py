"""The microbenchmark suite recovers every config's latencies exactly and its throughputs closely.

Every config in configs/ is measured, `article-*` and `teaching-*` included: their latencies and
unit widths are as meaningful to the timing model as a real GPU's (a 1-cycle ALU, 8-lane warps), so
none is skipped.  Each config runs on one SM with one block (about 1 s per config once numba's
cache is warm).
"""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from simt_sim.machine.config import list_configs, load_config
from simt_sim.calibrate import microbench as MB
from simt_sim.calibrate import probes
from simt_sim.programs import program_dir

ROOT = Path(__file__).resolve().parents[1]
# One SM's few host-copied lines: the H100 recorded them from wherever its address mapping put
# them between its two L2 partitions, which the model's draw (memory.l2.host_copy_far_ns) does not
# know, so these microbenchmarks compare at the mean first touch they were calibrated with.
MEAN_FIRST_TOUCH = ("sass.memory.l2.host_copy_far_ns=0",)
CONFIGS = [p.stem for p in list_configs()]
THROUGHPUT_TOLERANCE = 0.02      # relative: the clock reads and the ramp share the timed span

_reports: dict[str, MB.Report] = {}


def report(name: str) -> MB.Report:
    if name not in _reports:
        _reports[name] = MB.run_suite(name)
    return _reports[name]


@pytest.mark.parametrize("config", CONFIGS)
def test_alu_and_on_chip_latencies_are_exact(config):
    rep = report(config)
    rows = [r for r in rep.rows if r.what == "latency" and not r.name.startswith("DRAM")]
    assert len(rows) == 7
    wrong = [(r.name, r.measured, r.configured) for r in rows if not r.exact]
    assert not wrong, f"{config}: measured != configured: {wrong}"


@pytest.mark.parametrize("config", CONFIGS)
def test_dram_latency_is_exact(config):
    r = report(config).row("DRAM cold ld.global.cg", "latency")
    assert r.measured == r.configured


@pytest.mark.parametrize("config", CONFIGS)
def test_throughputs_match_the_units(config):
    rep = report(config)
    rows = [r for r in rep.rows if r.what == "throughput"]
    assert len(rows) == 4
    for r in rows:
        assert r.measured == pytest.approx(r.configured, rel=THROUGHPUT_TOLERANCE), (config, r)


@pytest.mark.parametrize("overrides,row,latency,throughput", [
    (["units.fp64.lanes=12"], "fp64 fma.rn.f64", 8, 4 / 3),                 # ii = ceil(32 / 12) = 3
    (["units.sfu.latency=4", "units.sfu.lanes=2"], "sfu rsqrt.approx.f32", 16, 0.25),   # ii 16 > latency
    (["latency_overrides={rsqrt: 39}"], "sfu rsqrt.approx.f32", 39, 0.5),
    (["units.int.shared_with=fp32"], "int mad.lo.s32", 4, 4.0),
    (["scheduler.issue_width=2", "units.fp32.pipes=2"], "fp32 fma.rn.f32", 4, 8.0),
])
def test_suite_follows_config_changes(overrides, row, latency, throughput):
    # h100.yaml is calibrated from hardware: pin the latencies these expectations assume
    pinned = ["units.fp32.latency=4", "units.int.latency=4", "units.fp64.latency=8"]
    rep = MB.run_suite("h100", pinned + overrides, memory=False)
    assert rep.row(row, "latency").measured == latency == rep.row(row, "latency").configured
    t = rep.row(row, "throughput")
    assert t.configured == pytest.approx(throughput)
    assert t.measured == pytest.approx(throughput, rel=THROUGHPUT_TOLERANCE)


def test_shared_chase_is_bounded_by_the_ldst_interval():
    rep = MB.run_suite("h100", ["memory.shared.latency=2", "units.ldst.lanes=4"], latency=False, throughput=False)
    r = rep.row("shared ld.shared", "latency")
    assert r.measured == r.configured == 8


@pytest.mark.parametrize("name", MB.program_names())
def test_checked_in_programs_match_the_generator(name):
    d = program_dir(f"micro-{name}")
    assert (d / "kernel.ptx").read_text() == MB.program_text(name), "run: python -m simt_sim.calibrate.microbench"
    assert (d / "manifest.yaml").read_text() == MB.manifest_text(name)


def test_chase_manifest_runs_from_the_cli():
    """The manifest's range() buffer holds the right absolute pointers (the chain buffer is first)."""
    r = subprocess.run([sys.executable, "-m", "simt_sim", "run", "programs/probes/micro-chase-l2",
                        "--set", "memory.l2.latency_spread_ns=[]"], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out = r.stdout.split("out = [")[1].split("]")[0].split()
    d1, d2, last = (int(v) for v in out)
    h100 = load_config("h100")
    assert (d2 - d1) / (MB.CHASE_N2 - MB.CHASE_N1) == h100.memory_latency("l2.latency")     # 278 at 1980 MHz
    assert last == 0x1_0000_0000 + MB.LINE * (1 + MB.CHASE_N1 + MB.CHASE_N2)


def test_runner_prints_a_table():
    r = subprocess.run([sys.executable, "benchmarks/microbench.py", "teaching-w4"], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "## teaching-w4" in r.stdout and "L2 hit ld.global.cg" in r.stdout


def test_shared_memory_instructions_take_32_bytes_per_cycle_per_pipe():
    """units.ldst.shared_bytes_per_cycle (tools/shared_ops.py): a shared-memory instruction holds its
    LD/ST pipe for its passes through the banks (SASS: 2 cycles each, and until the SM's port, one
    pass per cycle, takes it; a warp's own passes 4 cycles each, probe mio_queue).  One SM's rate with 32 warps within 5% of the
    H100's for LDS.64, LDS.128, STS.U16, STS.64, STS.128, LDSM.x4 and LDS.32 with two lanes on each
    bank, 6% for LDS.32 (+3.0% before the deferred barrier let warps past the loop's
    __syncthreads to their start clock: +5.1%); LDS.128 with every lane at one address within 13% (two passes, memory.shared.
    group_bytes: the model holds it 8 cycles, the H100 9, so 12.5% faster); STS.64's and LDS.128's with 1
    warp, and LDS.128's with 4 (one per sub-partition), within 20%.  STS.64 with 4 warps is the known gap:
    on the H100 four sub-partitions storing at once take 10.4 cycles per STS.64 each (8.5 alone); the
    model's pipes serve each sub-partition's 2 passes in 8 whatever the others do, and since the memory
    queue lets the warp's loop run under its stores, the model is 29% faster there.  Without the byte
    rate the model ran STS.64 twice as fast as the H100."""
    sys.path.insert(0, str(ROOT / "tools"))
    import shared_ops as SO
    hw = json.loads(SO.RECORDED.read_text())["warp_insts_per_cycle_per_sm"]
    for name in SO.KERNELS:
        rel = {"k_lds128_bcast": 0.13, "k_lds32": 0.06}.get(name, 0.05)
        assert SO.simulated_rate(name, 32) == pytest.approx(hw[f"{name}/32"], rel=rel), name
    for name, warps in (("k_sts64", 1), ("k_lds128", 1), ("k_lds128", 4)):
        assert SO.simulated_rate(name, warps) == pytest.approx(hw[f"{name}/{warps}"], rel=0.2), (name, warps)
    assert 1.2 < SO.simulated_rate("k_sts64", 4) / hw["k_sts64/4"] < 1.35
    unlimited = SO.simulated_rate("k_sts64", 32, ("sass.units.ldst.shared_bytes_per_cycle=0",))
    assert unlimited > 1.8 * hw["k_sts64/32"]


def test_a_queued_store_reads_its_data_when_it_issues_not_when_it_enters_the_pipe():
    """sass.memory_queue and the read barrier (probe store_read): each step of a loop issues 0 or 4
    STS.128 (4 passes through the banks each), then a store of x and an FFMA that overwrites x, which
    waits for that store's read barrier.  On the H100 each STS.128 ahead of x adds 11.2 cycles to a
    step with one warp and 34.7 with four warps on one sub-partition: what the pipe takes for it,
    so x's store read its data at issue, while the STS.128 still waited in the queue.  The model,
    whose queued instructions read their sources at issue (`operand_read_latency` after it), adds
    9.3 and 35.9 (stop 44: 11.8 and 32.1; reading them when each store enters the pipe gave 17.5
    and 44, as the FFMA then waits for the STS.128 ahead to pass every step).  The lone warp's 9.3
    is 17% short since x's 4-pass STS.32 holds it 8 cycles, 2 a pass as probe shared_rate's
    lone conflicted stores measure, not 16 (docs/timing.md)."""
    SR = probes.get("store_read")
    hw = SR.recorded()
    for label in ("1 warp", "4 warps, 1 sub-partition"):
        def per_fill(steps):
            return (np.mean(steps("k_sts_fill4")) - np.mean(steps("k_sts_fill0"))) / 4
        model = per_fill(lambda name: SR.simulated(f"{name} / {label}"))
        h100 = per_fill(lambda name: hw[f"{name} / {label}"])
        assert model == pytest.approx(h100, rel=0.2 if label == "1 warp" else 0.1), label


def test_a_store_reads_its_data_after_its_address_a_global_one_later_still():
    """sass.store_data_read_cycles and sass.global_store_data_read_cycles (t-opread,
    probe store_read): a lone warp's loop whose FFMA overwrites the x a store just stored takes
    34.1 cycles a step on the H100 with an STS of x and 36.1 with an STG (37.1 after an STS.128),
    so a global store reads its data 2-3 cycles after a shared one, which itself reads it 2 after
    the address a queued LDS.128 gives up at operand_read_latency (probe mio_queue).  The model
    gives the STS loop within 1.1 cycles and the STG loops with h100.yaml's
    global_store_data_read_cycles 5; with 2 they come out 3 cycles short."""
    SR = probes.get("store_read")
    hw = SR.recorded()
    sooner = ("sass.global_store_data_read_cycles=2",)
    for name in ("k_sts_fill0", "k_stg_fill0", "k_stg_fill1"):
        h100 = np.mean(hw[f"{name} / 1 warp"])
        assert np.mean(SR.simulated(f"{name} / 1 warp")) == pytest.approx(h100, abs=1.1), name
        if name.startswith("k_stg"):
            assert np.mean(SR.simulated(f"{name} / 1 warp", sooner)) < h100 - 2.5, name


def test_a_global_stores_data_wait_behind_the_data_of_the_stores_before_it():
    """sass.global_store_bytes_per_cycle (probe stg_read, recorded on an H200, the H100's SM): a
    lone warp's loop of K STG.64 (256 bytes each, issued 4 cycles apart) and two FFMAs overwriting
    their data takes 40.3 / 46.3 / 54.3 / 86.3 cycles a step for K = 1, 2, 4, 8: each store's data
    go through the sub-partition at 32 bytes a cycle after those of the stores before it.  The
    model's steps grow by the H100's 6, 8 and 32 cycles (within 1); reading at issue they grew by
    3, 0 and 17.  With 16 or 32 warps the SM's store port bounds the loop either way (within 5%)."""
    SG = probes.get("stg_read")
    hw = SG.recorded()
    kernels = ("k_stg1", "k_stg2", "k_stg4", "k_stg8")

    def growth(steps):
        return np.diff([steps[k] for k in kernels])
    h100 = growth({k: hw[f"{k} / 1 warp"][0] for k in kernels})
    assert growth({k: SG.simulated(f"{k} / 1 warp")[0] for k in kernels}) == pytest.approx(h100, abs=1.0)
    at_issue = growth({k: SG.simulated(f"{k} / 1 warp", ("sass.global_store_bytes_per_cycle=0",))[0] for k in kernels})
    assert at_issue[-1] < h100[-1] - 10
    for k in ("k_stg4", "k_stg8"):
        for label in ("16 warps", "32 warps"):
            assert SG.simulated(f"{k} / {label}")[0] == pytest.approx(hw[f"{k} / {label}"][0], rel=0.05), (k, label)


def test_global_stores_pass_through_the_banks_shared_accesses_use():
    """sass.global_store_line_passes (probe stg_read's tile epilogue, recorded on an H200): 16
    warps each storing their 16 x 16 tile (4 STG.64 of 4 lines each, 4 STS.64) and reading rows of it
    back with conflicted LDS take 895.6 cycles a step, the sum of the shared banks' passes of all of
    it; the SM's store port alone would allow 512.  The model gives 920.0 (32 warps: 1,841 against
    1,768), within 5%; without the stores' passes, 669."""
    SG = probes.get("stg_read")
    hw = SG.recorded()
    for label in ("16 warps", "32 warps"):
        h100 = hw[f"k_tile_epilogue / {label}"][0]
        assert SG.simulated(f"k_tile_epilogue / {label}")[0] == pytest.approx(h100, rel=0.05), label
    without = SG.simulated("k_tile_epilogue / 16 warps", ("sass.global_store_line_passes=0",))[0]
    assert without < 0.8 * hw["k_tile_epilogue / 16 warps"][0]


def test_a_shared_stores_data_wait_behind_the_global_stores_before_it():
    """sass.shared_store_bytes_per_cycle (probe stg_read, recorded on an H200): four warps on one
    sub-partition each storing 4 STG.64 and then 4 STS.64 of the same registers take 215.7 cycles a
    step, 88 more than the STG.64 alone: the shared stores' data wait behind the global ones' in the
    sub-partition's port.  The model gives 191 (within 15%), 159 without the port; a lone warp's
    step 63 against 76.2 (51 without)."""
    SG = probes.get("stg_read")
    hw = SG.recorded()
    for label in ("4 warps, 1 sub-partition", "1 warp"):
        h100 = hw[f"k_stg4_sts4 / {label}"][0]
        assert SG.simulated(f"k_stg4_sts4 / {label}")[0] == pytest.approx(h100, rel=0.18), label
        assert SG.simulated(f"k_stg4_sts4 / {label}", ("sass.shared_store_bytes_per_cycle=0",))[0] < 0.8 * h100, label


def test_a_sub_partition_pays_a_shared_stores_width_and_the_sm_its_bank_conflicts():
    """units.ldst.shared_store_cycles and warp_shared_store_bytes_per_cycle (probe shared_rate,
    recorded on an H200): four warps of one sub-partition store at one STS.32 / .64 / .128 per 4.0
    / 6.0 / 10.0 cycles, their width at 64 bytes a cycle and 2 more, whether their lanes make 1 or
    4 passes through the banks (a 16-lane STS.128 of 8 passes also 10.0; an 8-way STS.32 8.0, the
    SM's port); 16 warps take one pass a cycle; a lone warp's 4- and 8-way STS.32 and 8-pass
    STS.128 take 7.9 / 15.5 / 15.9 cycles each, 2 a pass.  The model's rows are within 5%; with
    stores holding the pipe for their passes, as loads, the tile's STS.64 took 8.2 a store."""
    SR = probes.get("shared_rate")
    hw = SR.recorded()
    stores = [k for k in SR.functions if k.startswith("k_sts")]
    rows = [(k, "4 warps, 1 sub-partition", 1) for k in stores] + [(k, "16 warps", 1) for k in stores] \
        + [(k, "1 warp", 0) for k in ("k_sts32_4way", "k_sts32_8way", "k_sts128_rows")]
    for k, label, col in rows:
        model = SR.simulated(f"{k} / {label}")[col]
        assert model == pytest.approx(hw[f"{k} / {label}"][col], rel=0.05), (k, label)
    as_loads = SR.simulated("k_sts64_tile / 4 warps, 1 sub-partition", ("sass.units.ldst.shared_store_cycles=0",))[1]
    assert as_loads > 1.3 * hw["k_sts64_tile / 4 warps, 1 sub-partition"][1]


def test_a_conflicted_shared_load_takes_two_cycles_more_per_pass():
    """Probe lds_conflict (recorded on an H200): a lone warp's dependent LDS.32 chain steps 2, 6, 14
    and 30 cycles slower with 2-, 4-, 8- and 16-way bank conflicts, and 16 warps' 8- and 16-way chains
    are bound by the SM's port at one pass a cycle; the tensor-core predictor's epilogue loads (16
    lanes 64 bytes apart) take within 3 cycles of the H100's.  The model's chains match within 1
    cycle (the port's cycle and memory.shared.wavefront_latency per pass); 16 warps' 2-way chain
    1.6 short."""
    LC = probes.get("lds_conflict")
    hw = LC.recorded()
    for k in ("k_lds32_s1", "k_lds32_s2", "k_lds32_s4", "k_lds32_s8", "k_lds32_s16"):
        for label in ("1 warp", "16 warps"):
            assert LC.simulated(f"{k} / {label}")[0] == pytest.approx(hw[f"{k} / {label}"][0], abs=2), (k, label)
    for k in ("k_lds128_s16_h", "k_lds64_s16_h"):
        assert LC.simulated(f"{k} / 1 warp")[0] == pytest.approx(hw[f"{k} / 1 warp"][0], abs=3.5), k


def test_each_pass_through_the_banks_adds_two_cycles_to_a_shared_load():
    """memory.shared.wavefront_latency (tools/shared_ops.py): on the H100 a dependent chain of
    LDS.64, of a broadcast LDS.128 (two passes each) and of LDSM.x2 steps 2 cycles slower than one
    of LDS.32 / LDSM.x1, LDSM.x4 (four passes) 6; the model's load latency grows by the same (the
    port's cycle and this key's per pass).  LDS.128 (four passes) takes 8 on the H100, 6 here.  The
    broadcast's two passes come from memory.shared.group_bytes (half a warp at a time)."""
    sys.path.insert(0, str(ROOT / "tools"))
    import shared_ops as SO
    chains = json.loads(SO.RECORDED.read_text())["chain_cycles_per_step"]
    latency = {name: SO.simulated_load_latency(name) for name in SO.CHAINS}
    for name, base in (("k_chain_lds64", "k_chain_lds32"), ("k_chain_lds128_bcast", "k_chain_lds32"),
                       ("k_chain_ldsm2", "k_chain_ldsm1"), ("k_chain_ldsm4", "k_chain_ldsm1")):
        assert latency[name] - latency[base] == pytest.approx(chains[name] - chains[base], abs=0.3), name
    assert latency["k_chain_lds128"] - latency["k_chain_lds32"] == 6
    whole_warp = SO.simulated_load_latency("k_chain_lds128_bcast", ("memory.shared.group_bytes=0",))
    assert whole_warp == latency["k_chain_lds32"]          # one pass: the broadcast lost its two
    flat = SO.simulated_load_latency("k_chain_ldsm4", ("memory.shared.wavefront_latency=0",))
    assert latency["k_chain_ldsm4"] - flat == 3


def test_special_register_read_probe_replays_the_recording():
    """probe sreg_latency (references/h100/sreg_latency.json): every kernel's recorded H100 span
    beside the model's, and the figures docs/calibration-log.md quotes ("Special-register reads"):
    the H100's S2R after four loads adds 15 cycles, and so does the model's since its S2R takes 23
    cycles (sass.latency_overrides; it took 4 and added 2 before)."""
    SL = probes.get("sreg_latency")
    rows = {row: (rec, model) for row, rec, model in SL.replay()}
    spans = {r: v for r, v in rows.items() if not r.startswith("k_sr14")}
    assert len(spans) == 6 and rows["k_sr_tid_x / 1 warp"][0] == [1256.0]
    recorded_latency = SL.module.s2r_latency({r: rec for r, (rec, _) in spans.items()})
    model_latency = SL.module.s2r_latency({r: model for r, (_, model) in spans.items()})
    assert recorded_latency == SL.document()["s2r_latency"]         # the recording's own differences
    assert recorded_latency["k_loads_sr_laneid"] == model_latency["k_loads_sr_laneid"] == 15
    for k in ("k_sr_laneid", "k_sr_ctaid_x"):
        assert abs(recorded_latency[k] - model_latency[k]) <= 4, k


def test_an_s2r_takes_the_same_23_cycles_whenever_a_warp_issues_it():
    """probe sreg_delay (tools/kernels/sreg_delay.cu, recorded 2026-11-27): one warp spins 0 to
    6,400 cycles, then times one S2R and the add that uses it.  On the H100 the read adds 23 cycles
    (SR_LANEID, also after an S2R SR_TID.X) or 25 (SR_CTAID.X) at every spin: no slow first read,
    no warming.  The model's S2R (sass.latency_overrides S2R: 23) adds the same 23 everywhere."""
    SD = probes.get("sreg_delay")
    rows = {row: (rec[0], model[0]) for row, rec, model in SD.replay()}
    spins = SD.module.SPINS

    def added(name, side):
        return [rows[f"{name} / {s}"][side] - rows[f"k_sd_none / {s}"][side] for s in spins]
    assert added("k_sd_laneid", 0) == added("k_sd_second", 0) == [23] * 8
    assert added("k_sd_ctaid_x", 0) == [25] * 8
    for name in ("k_sd_laneid", "k_sd_second", "k_sd_ctaid_x"):
        assert added(name, 1) == [23] * 8, name


def test_a_warp_issues_memory_instructions_into_the_queue_while_the_pipe_serves_earlier_ones():
    """sass.memory_queue (probe mio_queue): one warp issues 16 independent LDS.128, each followed
    by a clock read.  The LD/ST pipe serves one per 16 cycles (4 passes through the banks), yet on
    the H100 the warp goes on issuing, 4 to 8 cycles apart, until the 16th: the clock steps of the
    model with 10 instructions waiting are the H100's, to the cycle, and 10 is the fewest that gives
    them (`simt-sim probe mio_queue --fit`, which also picks the shared-memory rate that comes
    closest: a sub-partition's 64 bytes per cycle from 4 warps' LDS.32).  A warp's own rate from
    this burst's sum, which since the constant caches also holds its store pointer's first LDC read,
    comes closest at 64: 298 cycles against the H100's 304, 418 at 32.  h100.yaml keeps 32, which
    tools/shared_ops.py's lone warp's STS.64 pins: 0.123 per cycle at 32, 0.149 at 64, H100 0.117.
    Without the queue (and the
    pipe at the warp's own 32 bytes per cycle) the warp waits at each LDS.128 for the pipe (the 16th
    issues at cycle 256, not 110); the data arrives no sooner with the queue, since the warp's
    accesses pass at the same rate."""
    MQ = probes.get("mio_queue")
    row = "k_lds128 / 1 warp"
    hw = MQ.recorded()[row]
    queued = MQ.simulated(row)                                 # configs/h100.yaml
    assert queued[:17] == hw[:17]
    held = MQ.simulated(row, ("sass.memory_queue=0", "sass.units.ldst.shared_bytes_per_cycle=32"))
    assert held[16] == 256 and hw[16] == 110
    assert queued[-1] == held[-1]                              # the sum waits for the same last pass
    cfg = load_config("h100")
    fit = MQ.fit()                                             # `--fit`
    assert fit["sass.memory_queue"]["best"] == cfg.get("sass.memory_queue") == 10
    assert all(e > 0 for d, e in fit["sass.memory_queue"]["errors"].items() if d < 10)    # 10 is the fewest
    # the sub-partition's 2 cycles a pass
    assert fit["sass.units.ldst.shared_bytes_per_cycle"]["best"] == cfg.get("sass.units.ldst.shared_bytes_per_cycle") == 64
    key = "sass.units.ldst.warp_shared_bytes_per_cycle"        # the burst's sum: closest at 64, h100.yaml 32
    sums = {r: abs(MQ.simulated(row, (f"{key}={r}",))[33] - hw[33]) for r in (16, 32, 64, 128)}
    assert min(sums, key=sums.get) == 64 and cfg.get(key) == 32


def test_each_further_kernel_of_a_stream_costs_the_h100s_interval_between_launches():
    """sm.stream_kernel_gap (tools/launch_sequence.py): on the H100 each further empty kernel queued
    in one stream adds 1.99 us, 3,946 cycles at 1980 MHz; the model's SASS launch latency and the
    empty body give 3,439 (its LDC R1's first read of its line takes 98 cycles, its first code line
    18 in a plain launch), so the next kernel of a stream waits 507 cycles more after the previous
    one ends (`--fit` finds them; PTX runs keep sm.stream_kernel_gap 361 beside their launch
    latency).  The fusion study's serial run is such a pair."""
    sys.path.insert(0, str(ROOT / "tools"))
    import launch_sequence as LS
    h100, without, gap = LS.fitted_gap()
    assert round(without) == 3439 and gap == load_config("h100").get("sass.stream_kernel_gap") == 507
    assert LS.model_cycles_per_further_kernel() == pytest.approx(h100, abs=1)


def test_a_dram_load_waits_longer_the_more_loads_are_in_flight():
    """memory.dram.inflight_cycles (probe stream_load, `--fit` picks it among a few values): 132
    SMs stream through flushed lines.  On the H100 a step waits 718 cycles with one warp per SM and
    one line, 1,023 with 16 warps of two lines each (4,224 lines in flight); the model with 0.02
    cycles per sector of loads in flight gives 698 and 1,017, without it 690 and 700: its DRAM port
    queues only past the bandwidth, which these streams do not reach."""
    SL = probes.get("stream_load")
    light, heavy = "stream / 132 SMs, 1 warp, 1 line", "stream / 132 SMs, 16 warps, 2 lines"
    assert load_config("h100").get("memory.dram.inflight_cycles") == 0.02
    for row, rec, model in SL.replay(rows=(light, heavy)):
        assert model == pytest.approx(rec, rel=0.05), row
    assert SL.simulated(heavy, ("memory.dram.inflight_cycles=0",))[0] < 0.75 * SL.recorded()[heavy][0]


def test_a_plain_launchs_host_copied_lines_come_from_l2_however_many_loads_are_in_flight():
    """tools/host_load.py's host_over_l2 condition (programs/validation/v-lat-l2/reference/
    h100-host-load-over-l2.json): 132 SMs stream through lines a first launch read in and the host
    then copied over, as a benchmark loop's inputs (the workload references' block clocks).  A step
    waits 384-388 cycles with one warp per SM and 390-408 with 16 (DRAM: 719-723 and 756-795), so
    those lines do not wait for DRAM's loads in flight.  The model's plain launch gives the
    host's lines memory.l2.host_copy_latency past the L2 port alone: the same stream kernel
    (probe stream_load) 386 and 389, where the DRAM lines of a flushed launch take 699 and 849."""
    SL = probes.get("stream_load")
    rec = json.loads((ROOT / "programs" / "validation" / "v-lat-l2" / "reference" / "h100-host-load-over-l2.json").read_text())
    over_l2 = {w: np.mean([r["host_over_l2"] for r in rec["mean_wait_per_step"]
                           if r["warps_per_sm"] == w and r["buffer_mib"] < 20]) for w in (1, 16)}
    for w in (1, 16):
        plain = SL.simulated(f"stream / {SL.module.label(132, w, 1)}", ("host.caches_flushed=false",))
        assert plain[0] == pytest.approx(over_l2[w], rel=0.05)
    assert SL.simulated("stream / 132 SMs, 16 warps, 1 line")[0] > 1.5 * over_l2[16]      # flushed: DRAM, loaded


def test_the_xu_pipe_takes_a_conversion_every_8_cycles_and_the_override_gives_64_bit_ones_9():
    """units.sfu.lanes and sass.interval_overrides (probe xu_rate): with 8 warps per sub-partition
    converting 8 independent values each step, the H100 takes 8.07 cycles per MUFU.EX2 on a
    sub-partition (the XU pipe's 4 lanes), 8.6 per F2F.F64.F32 and 9.05 per F2F.F32.F64; the
    recorded per-pipe counts put F2F on the XU pipe.  With the lanes' interval alone the model
    takes 8 for each; h100.yaml's `interval_overrides: {F2F.f64: 9, F2F.f32: 9}` brings the
    conversions within half a cycle."""
    XU = probes.get("xu_rate")
    hw = XU.recorded()
    for name in ("k_f2f_f64_f32", "k_f2f_f32_f64", "k_mufu_ex2"):
        lanes = XU.simulated(f"{name} / 8 warps/SMSP", ("sass.interval_overrides={}",))[0]
        assert lanes == pytest.approx(8.0, abs=0.1), name
        h100 = hw[f"{name} / 8 warps/SMSP"][0]
        assert 8.0 <= h100 <= 9.1, name
        assert XU.simulated(f"{name} / 8 warps/SMSP")[0] == pytest.approx(h100, abs=0.5), name


def test_an_imad_wide_holds_the_fma_heavy_pipe_4_cycles():
    """sass.interval_overrides IMAD.WIDE: 4 (tools/sched_beside.py --ncu-pipes, recorded on an
    H200): a lone warp's 274 IMAD.WIDE keep the FMA-heavy pipe active 1,096 cycles, 4 each, and
    nothing else of that warp runs there.  The model's FP32 unit is busy as long (its lanes alone
    would give 2 cycles); without the override it is busy half as long."""
    sys.path.insert(0, str(ROOT / "tools"))
    import sched_beside as SB
    rec = json.loads(SB.PIPES.read_text())["runs"]["k_ldg_f0_s0"]
    assert rec["sm__pipe_fmaheavy_cycles_active.sum"] / rec["sm__inst_executed_pipe_fmaheavy.sum"] == pytest.approx(4, rel=0.01)
    import simt_sim
    prog = simt_sim.load_program(str(SB.PTX), "k_ldg_f0_s0", isa="sass")
    cfg = simt_sim.load_config("h100", ["num_sms=1"])
    res = simt_sim.simulate([simt_sim.Launch(prog, 1, SB.THREADS, ["times", "g", "out", SB.C, SB.D])], SB.buffers(), cfg)
    k = res.metrics[0]
    fp32_busy = k["unit_busy"]["fp32"] * k["cycles"] * 4 * 2          # 4 sub-partitions, 2 pipes
    assert fp32_busy / rec["sm__inst_executed_pipe_fmaheavy.sum"] == pytest.approx(4, rel=0.05)
    two = simt_sim.simulate([simt_sim.Launch(prog, 1, SB.THREADS, ["times", "g", "out", SB.C, SB.D])], SB.buffers(),
                            simt_sim.load_config("h100", ["num_sms=1", "sass.interval_overrides={HMMA: 6}"]))
    assert two.metrics[0]["unit_busy"]["fp32"] < 0.6 * k["unit_busy"]["fp32"]


def test_constant_loads_and_special_register_reads_each_pass_an_sm_wide_unit_every_2_cycles():
    """sass.sm_unit_cycles {LDC: 2, S2R: 2} and the LDC latency 30 (probe control_rate, recorded
    on the H100): 8 warps on every sub-partition, each loading 4 constants (LDC c[0x3][R]) or
    reading %warpid 4 times (S2R SR_VIRTID) an iteration, get one per 2.0 cycles per SM, while 8
    warps on one sub-partition run 40% faster; two of each mixed, or LDC among LDS, are not held
    to that rate, so each family has its own unit.  Without the units the model's 32 warps run
    over 40% fast."""
    CR = probes.get("control_rate")
    rec = CR.recorded()

    def hw(name, label):
        return rec[f"{name} / {label}"][0]
    for name in ("k_ldc", "k_s2r"):
        cycles_per_op_per_sm = hw(name, "8/SMSP") * 8 / (32 * 4)
        assert 1.95 < cycles_per_op_per_sm < 2.1, name
        assert hw(name, "8 on 1 SMSP") < 0.85 * hw(name, "8/SMSP"), name
        assert CR.simulated(f"{name} / 8/SMSP")[0] == pytest.approx(hw(name, "8/SMSP"), rel=0.03), name
        assert CR.simulated(f"{name} / 8 on 1 SMSP")[0] == pytest.approx(hw(name, "8 on 1 SMSP"), rel=0.06), name
        assert CR.simulated(f"{name} / 8/SMSP", ("sass.sm_unit_cycles={}",))[0] < 0.85 * hw(name, "8/SMSP"), name
    for name in ("k_ldc_s2r", "k_ldc_lds"):
        assert hw(name, "8/SMSP") < 1.05 * hw(name, "8 on 1 SMSP"), name
        assert CR.simulated(f"{name} / 8/SMSP")[0] == pytest.approx(hw(name, "8/SMSP"), rel=0.05), name
    assert CR.simulated("k_ldc / 1 warp")[0] == pytest.approx(hw("k_ldc", "1 warp"), rel=0.02)


def test_bssy_and_bsync_of_a_sub_partitions_warps_pass_one_convergence_unit():
    """sass.convergence_unit_cycles 10 (probe control_rate, recorded on the H100): a loop of 14
    instructions with a BSSY / BSYNC pair (k_lane_if) takes 4 and 8 warps of every sub-partition
    23.5 and 20.3 cycles a warp-iteration, the divergent one (k_lane_if_half) 39.2 and 31.8, where
    loops of as many instructions with branches and no pair run at their instructions' pace: 8
    warps pass a BSSY or BSYNC every 10 cycles.  The model's rows are within 6%, a lone warp's as
    before; without the unit 8 warps ran 11-16% fast."""
    CR = probes.get("control_rate")
    rec = CR.recorded()
    for name in ("k_lane_if", "k_lane_if_half"):
        for label in ("1 warp", "4/SMSP", "8/SMSP", "8 on 1 SMSP"):
            h100 = rec[f"{name} / {label}"][0]
            tol = 0.06 if label != "1 warp" else 0.05
            assert CR.simulated(f"{name} / {label}")[0] == pytest.approx(h100, rel=tol), (name, label)
        without = CR.simulated(f"{name} / 8/SMSP", ("sass.convergence_unit_cycles=0",))[0]
        assert without < 0.9 * rec[f"{name} / 8/SMSP"][0], name


def test_a_sub_partition_issues_one_hmma_every_6_cycles():
    """sass.interval_overrides HMMA: 6 (probe hmma_rate, recorded on an H200): warps with 4 or
    8 independent HMMA.16816 chains get one per 6.0-6.6 cycles per sub-partition once two or more
    share it (f32 or f16 accumulators), a lone warp one per 8.7-11 (its stall counts), a dependent
    chain one per 29.  The model's saturated rows are within 10% and its lone warps' within 5%;
    with the tensor pipe's interval of 1 cycle the sub-partition took one HMMA per 2-3.1 cycles
    (its register-file reads of the accumulators bound it)."""
    HR = probes.get("hmma_rate")
    hw = HR.recorded()
    for name in ("k_f32_4", "k_f32_8", "k_f16_8"):
        for label in ("4 warps, 1 sub-partition", "32 warps"):
            h100 = hw[f"{name} / {label}"][1]
            assert 5.9 < h100 < 6.7, (name, label)
            assert HR.simulated(f"{name} / {label}")[1] == pytest.approx(h100, rel=0.1), (name, label)
        assert HR.simulated(f"{name} / 1 warp")[0] == pytest.approx(hw[f"{name} / 1 warp"][0], rel=0.05), name
    assert HR.simulated("k_f32_8 / 32 warps", ("sass.interval_overrides={}",))[1] < 3.5


def test_a_dmul_costs_a_lone_warp_one_cycle_a_loop_however_many_its_neighbours():
    """sass.write_port_latency (probe dmul_phase, recorded on the H100): a lone warp's loop of 8
    independent multiplies, 1, 2 or 4 of them DMUL, costs 1.00, 1.05 and 1.12 cycles more than the
    FMUL loop, and as much with 2 warps per sub-partition.  Booking a DMUL's write port 6 cycles
    after issue, 2 after an FMUL issued with it (though its dependants wait 8), gives each within
    0.1; booking it at its latency, 8, lets the FMUL held for the first DMUL land on the second's
    write and costs the 2-DMUL loop 2 cycles.  With 8 warps per sub-partition the H100 loses
    0.84-0.91 (1 DMUL, 2 DMULs) and 1.12-1.19 (4 DMULs) whatever phase the warps start in."""
    DP = probes.get("dmul_phase")
    rec = DP.recorded()
    hw = DP.module.extra_per_dmul_kernel({n: {s: rec[f"{n} / {s}"][0] for s in DP.sets} for n in DP.functions})
    eight = [i for i, s in enumerate(DP.sets) if s.startswith("8 warps")]
    for name in ("k_d1", "k_d2"):
        assert 0.8 <= min(hw[name][i] for i in eight) and max(hw[name][i] for i in eight) <= 0.95, name
    few = ("1 warp/SMSP", "2 warps/SMSP")
    for sets, d2_lone in (((), 1.0), (("sass.write_port_latency={}",), 2.0)):
        model = {n: {s: DP.simulated(f"{n} / {s}", sets)[0] for s in few} for n in DP.functions}
        extra = DP.module.extra_per_dmul_kernel(model)
        assert extra["k_d2"][0] == pytest.approx(d2_lone, abs=0.1), sets
        if not sets:
            for name in extra:
                for i, s in enumerate(few):
                    assert extra[name][i] == pytest.approx(hw[name][i], abs=0.1), (name, s)


def test_conversions_and_exponentials_among_fmuls_lose_the_h100s_dispatch_cycles():
    """sass.write_port_units includes sfu (probe dispatch_stall, recorded on the H100): with 8
    warps per sub-partition, 1 or 2 F2F.F64.F32 + DADD or MUFU.EX2 + FADD chains among 8 FMUL
    chains cost the H100 1.3-2 cycles a step beyond their issue slots (Nsight Compute: dispatch
    stalls).  XU results taking the register-file write port as FMA and FP64 ones do brings each
    within 5%; without it the model is 7-12% short on three of them.  Since the SM-wide S2R unit
    (sass.sm_unit_cycles) staggers the 32 warps' starts by their S2R SR_TID.X, 2 cycles a warp,
    2 EX2 + FADD comes out 10% long (20.09 against 18.27; 18.34 without the unit): 8 warps'
    packing on the XU pipe depends on their phase (probe dmul_phase)."""
    DS = probes.get("dispatch_stall")
    rec = DS.recorded()
    without = ("sass.write_port_units=[fp32, int, fp64]",)
    short = 0
    for name in ("k_f2f1", "k_f2f2", "k_ex2_1", "k_ex2_2"):
        row = f"{name} / 8 warps/SMSP"
        h100 = rec[row][0]
        assert DS.simulated(row)[0] == pytest.approx(h100, rel=0.11 if name == "k_ex2_2" else 0.05), name
        short += DS.simulated(row, without)[0] < 0.95 * h100
    assert short >= 3


def test_a_taken_loop_branch_waits_its_stall_count_then_resolves_then_fetches():
    """sass.branch_resolve_cycles (probe dmul_phase --ncu, Nsight Compute's reasons recorded
    on the H100): a lone warp's FMUL loop waits per iteration 11.3 warp-cycles on stall counts
    (`wait`), 3.1 branch_resolving and 2.5 no_instruction after its taken branch.  The model's
    redirect (sass.taken_branch_latency) is named the same way: the branch's own stall count, 3
    cycles resolving, the rest fetching; each within 0.5.  Booked whole as branch_resolving, as
    before, it gave 9 and a `wait` 4 cycles short."""
    DP = probes.get("dmul_phase")
    hw = DP.ncu_recorded()["k_f0 / 1 warp/SMSP"]
    model = DP.ncu_simulated("k_f0 / 1 warp/SMSP")
    for reason in ("wait", "branch_resolving", "no_instruction", "selected"):
        assert model[reason] == pytest.approx(hw[reason], abs=0.5), reason
    whole = DP.ncu_simulated("k_f0 / 1 warp/SMSP", ("sass.branch_resolve_cycles=0",))
    assert whole["branch_resolving"] > 8 and whole["wait"] < hw["wait"] - 3
    assert sum(whole.values()) == pytest.approx(sum(model.values()))      # the same cycles, named anew


def test_the_h100s_warp_order_follows_ptxas_yield_hints():
    """tools/warp_ends.py --yield-hints (recorded on the H100 from the committed cubins): the slot
    order of the plain kernels comes with ptxas's yield hints.  With the hint cleared on every FMUL
    (a patched cubin), the unrolled loop's 32 FP32 warps end within 2% of each other, and with 8
    FP64 warps the FP32 warps, which no longer yield, take the issue slots: they end by 28,400
    cycles, the FP64 warps (whose DMULs still yield) at 57,900, twice as late.  With no yield hint
    left in the loops the lowest slot starves (the unrolled loop: slot 0 at 45,400, slots 1-7 by
    32,100).  gwf (yields weigh the next choice by slot) reproduces the plain kernels, not these."""
    sys.path.insert(0, str(ROOT / "tools"))
    import warp_ends as WE
    rec = json.loads(WE.RECORDED_YIELD.read_text())["cycles"]
    plain = WE.slot_ends(rec["ptxas's hints"]["warp_ends_u8 / 0 FP64 warps"])
    assert list(np.argsort(-plain)) == list(range(8)) and plain[0] - plain[7] > 2500
    even = np.array(rec["no FMUL yields"]["warp_ends_u8 / 0 FP64 warps"][len(WE.FIGURES):])
    assert (even.max() - even.min()) / even.max() < 0.02
    mixed = rec["no FMUL yields"]["warp_ends_u8 / 8 FP64 warps"]
    assert mixed[3] < 29000 and mixed[2] > 1.9 * mixed[1]      # last FP32 end; FP64 mean twice FP32 mean
    starved = WE.slot_ends(rec["no yields in the loops"]["warp_ends_u8 / 0 FP64 warps"])
    assert starved[0] > 1.3 * starved[1:].max()
    model = WE.slot_ends(WE.simulated(0, ("scheduler.policy=gwf",), "warp_ends_u8", WE.PTX))
    assert model[7] == model.min() and model[0] - model[7] > 1500


def test_yield_hints_on_independent_fmul_chains_grade_the_h100s_slots():
    """probe yield_hints (recorded on the H100): t-fp64-issue-f0's loop, 8 independent FMUL
    chains and one yield hint per iteration, ends its 32 warps within 0.3% of each other; with
    the hint set on every FMUL the higher slots finish first (slot 7 1,330 cycles, 5.8%, before
    slot 0), as the dependent chains of tools/warp_ends.py do with ptxas's hints.  h100.yaml's grr
    ignores the hints (every variant alike); gwf grades the every-FMUL variant weakly (docs/timing.md)."""
    YH = probes.get("yield_hints")
    rec = YH.recorded()
    plain = np.array(rec["yield_f0 / 8 warps/SMSP"][1:])
    assert (plain.max() - plain.min()) / plain.max() < 0.005
    every = YH.module.slot_ends(rec["yield_f0_all / 8 warps/SMSP"])
    assert list(np.argsort(-every)) == list(range(8)) and (every[0] - every[7]) / every[0] > 0.04
    assert YH.simulated("yield_f0 / 8 warps/SMSP") == YH.simulated("yield_f0_all / 8 warps/SMSP")   # grr: hints play no part
    gwf = YH.module.slot_ends(YH.simulated("yield_f0_all / 8 warps/SMSP", ("scheduler.policy=gwf",)))
    assert gwf[7] == gwf.min() and gwf[0] > gwf[7]


def test_the_h100s_scheduler_ends_its_higher_warp_slots_first_and_so_does_gwf():
    """tools/warp_ends.py (recorded on the H100): 32 warps of dependent FMUL chains, 8 per
    scheduler, end in the order of their slot, the highest first (slot 7 about 2,800 cycles before
    slot 0, 6% of the span; 8% with the loop unrolled 8 times, so not from its branches); with 8
    FP64 warps in the lowest slots those end 3,500 cycles after the FP32 warps' mean.  The gwf
    policy (slot s weighs 1 + 0.02 s after a yield) ends slot 7 first and the FP64 warps last as
    well, slot 7 4.0% of the span before slot 0 (4.5% before the constant caches shifted the warps'
    starts); h100.yaml's grr ends every warp within 1% of the span (docs/timing.md)."""
    sys.path.insert(0, str(ROOT / "tools"))
    import warp_ends as WE
    rec = json.loads(WE.RECORDED.read_text())["cycles"]
    for kernel in ("warp_ends", "warp_ends_u8"):               # a loop branch per 8 multiplies, or per 64
        hw0 = rec[f"{kernel} / 0 FP64 warps"]
        slot_ends = WE.slot_ends(hw0)                          # warp w runs in slot w // 4 of scheduler w % 4
        assert list(np.argsort(-slot_ends)) == list(range(8)), kernel     # slot 0 last, slot 7 first
        assert 0.04 < (slot_ends[0] - slot_ends[7]) / hw0[0] < 0.09, kernel
    hw8 = rec["warp_ends / 8 FP64 warps"]
    assert hw8[2] - hw8[1] > 3000                               # FP64 warps' mean end after the FP32 warps'
    gwf = ("scheduler.policy=gwf",)
    model0 = WE.simulated(0, gwf)
    slots = WE.slot_ends(model0)
    assert slots[7] == slots.min() and slots[0] == slots.max()
    assert 0.035 < (slots[0] - slots[7]) / model0[0] < 0.09
    model8 = WE.simulated(8, gwf)
    assert model8[2] - model8[1] > 2000 and model8[0] == pytest.approx(hw8[0], rel=0.03)
    grr = np.array(WE.simulated(0)[len(WE.FIGURES):])
    assert (grr.max() - grr.min()) / grr.max() < 0.01


def test_an_sms_blocks_share_its_schedulers_by_age_where_the_code_has_no_yield_hints():
    """scheduler.policy awf (tools/warp_progress.py, recorded on the H100): B blocks of 128
    threads per SM run block_order's FMUL loops, every warp recording the clock each 16 of its 256
    iterations.  With four chains as ptxas made them (no yield hints) the H100's blocks advance at
    steady shares that fall with their age: with 8 blocks the oldest is at iteration 64 after
    11,245 cycles, the youngest after 33,962, and all end within 46,192-70,211.  awf (stride
    scheduling where the k-th oldest block weighs 1 - 0.1 k; after a yield hint ogr's order)
    follows every checkpoint within 5% on average; grr (round robin) advances them together and
    ogr (strictly by age) runs them one after another, both 20% or more off on average."""
    sys.path.insert(0, str(ROOT / "tools"))
    import warp_progress as WP
    rec = json.loads(WP.RECORDED.read_text())["progress"]["ptxas's hints"]
    awf = ("scheduler.policy=awf", "scheduler.age_weight_step=0.1")

    def error(name, label, overrides):
        n = WP.SETS[label]
        hw = WP.curves(rec[f"{name} / {label}"], n)[:, 1:]
        model = WP.curves(WP.simulated(name, n, overrides), n)[:, 1:]
        return float((abs(model - hw) / hw).mean())

    hw8 = WP.curves(rec["k_chains4_progress / 8 blocks of 128"], 8)
    assert rec["k_chains4_progress / 8 blocks of 128"][0] == 132           # every SM held 8 blocks
    assert list(hw8[:, 4]) == sorted(hw8[:, 4]) and hw8[7, 4] > 2.5 * hw8[0, 4]   # graded, not strict
    assert hw8[0, -1] > 0.6 * hw8[7, -1]                                  # the oldest does not run alone
    for label in ("4 blocks of 128", "8 blocks of 128"):
        assert error("k_chains4_progress", label, awf) < 0.05, label
    assert error("k_chain_progress", "8 blocks of 128", awf) < 0.07
    assert error("k_chains4_progress", "8 blocks of 128", ("scheduler.policy=grr",)) > 0.15
    assert error("k_chains4_progress", "8 blocks of 128", ("scheduler.policy=ogr",)) > 0.2


def test_an_sms_oldest_block_issues_first():
    """scheduler.policy ogr (tools/block_order.py, recorded on the H100): B blocks per SM run the
    same FMUL loop.  With one dependent chain a warp (a stall count of 4 and the yield hint on
    every FMUL) the H100's blocks end in launch order, the oldest at nearly its lone pace: with 8
    blocks of 128 threads rank 0 ends at 9,474 cycles and rank 7 at 20,632; and a second kernel's
    blocks wait behind the first's (a kernel of 4 long blocks per SM, then one of 2 in another
    stream: the second's blocks take 40,494 and 47,638 cycles where alone they take 9,132).  With
    four independent chains and the yield hint set on every FMUL (--yield-hints) the two oldest
    warps of a scheduler take turns and the others wait: 4 blocks end at 17,561, 17,546, 33,709
    and 34,911.  ogr (the warp issuing back to back kept first, then the oldest block's warps,
    round robin within a block) gives all of these within 5%, and starves the second kernel as
    long; grr, round robin, ends the 8 blocks together (rank 0 at 17,858) and runs the second
    kernel at its own pace.  Without the yield hints the H100 keeps the order more loosely than
    ogr (docs/timing.md).  Four chains as ptxas made them (no hint): two blocks take turns and
    end together on both (16,753 and 16,894 on the H100)."""
    sys.path.insert(0, str(ROOT / "tools"))
    import block_order as BO
    recorded = json.loads(BO.RECORDED.read_text())
    rec = recorded["ranks"]
    ogr, grr = ("scheduler.policy=ogr",), ("scheduler.policy=grr",)
    for label, active in BO.SETS.items():
        n = active[0]
        hw = rec[f"k_chain / {label}"]
        assert hw[0] == 132, label                          # every SM held exactly B blocks
        assert hw[1:1 + n] == sorted(hw[1:1 + n]), label    # they end in launch order
        model = BO.simulated("k_chain", active, ogr)[1:1 + n]
        assert model == pytest.approx(hw[1:1 + n], rel=0.05), label
    eight = BO.SETS["8 blocks of 128"]
    assert BO.simulated("k_chain", eight, grr)[1] > 1.5 * rec["k_chain / 8 blocks of 128"][1]
    lone = rec["k_chain / 2 blocks of 128"][1]
    (label, kernels), = BO.STREAM_SETS.items()
    hw = recorded["stream_ranks"][f"k_chain / {label}"]
    model, shared = BO.simulated_streams("k_chain", kernels, ogr), BO.simulated_streams("k_chain", kernels, grr)
    assert model[1:5] == pytest.approx(hw[1:5], rel=0.02)          # the first kernel's blocks
    assert min(hw[5:7]) > 4 * lone and min(model[5:7]) > 4 * lone    # the second's wait behind them
    assert max(shared[5:7]) < 2 * lone
    hinted = json.loads(BO.RECORDED_YIELD.read_text())["ranks"]["a hint on every FMUL"]
    ptx = BO.PTX.with_name(f"{BO.YIELD_VARIANTS['a hint on every FMUL']}.ptx")
    for label in BO.YIELD_SETS:
        active = BO.SETS[label]
        n = active[0]
        hw = hinted[f"k_chains4 / {label}"][1:1 + n]
        assert BO.simulated("k_chains4", active, ogr, ptx)[1:1 + n] == pytest.approx(hw, rel=0.05), label
    assert hinted["k_chains4 / 4 blocks of 128"][3] > 1.8 * hinted["k_chains4 / 4 blocks of 128"][2]
    two = rec["k_chains4 / 2 blocks of 128"][1:3]
    assert two[1] == pytest.approx(two[0], rel=0.01)
    assert BO.simulated("k_chains4", BO.SETS["2 blocks of 128"], ogr)[1:3] == pytest.approx(two, rel=0.02)


def test_an_ldsm_passes_the_banks_a_matrix_at_a_time_and_a_warp_pays_two_cycles_a_conflict_pass():
    """probe bank_conflicts (recorded on an H200, with Nsight Compute's wavefronts): each 8x8
    matrix of an LDSM passes the banks on its own, so an LDSM.x4 of rows 64 bytes apart makes 16
    passes, not the 8 its 32 rows together would; 16 warps are bound by the SM's port at one pass a
    cycle once a load makes 4.  A lone warp pays its load's width at 32 bytes a cycle and each conflict pass at 64
    (units.ldst.warp_shared_conflict_bytes_per_cycle): what 2, 4 or 8 passes a matrix add to its
    cycles per LDSM.x4 (8.0 / 24.7 / 54.0), and 4 or 8 to an LDS.32's (4.2 / 12.2), the model adds
    within 2.5 cycles; with every pass at 32 bytes a cycle, twice as much."""
    BC = probes.get("bank_conflicts")
    hw = BC.recorded()
    wavefronts = {row.split(" / ")[0][2:]: f["wavefronts_per_load"] for row, f in BC.ncu_recorded().items()}

    def rate(name, warps, over=()):
        return BC.simulated(f"k_{name} / {warps} warp{'s' if warps > 1 else ''}", over)[0]

    for name in BC.module.LOADS:
        if wavefronts[name] >= 4:       # an LDS.32 of one pass is not bound by the port
            assert rate(name, 16) == pytest.approx(1 / wavefronts[name], rel=0.03), name
    def added(name, free, cycles):          # a lone warp's cycles per load over its conflict-free kind's
        return cycles(name) - cycles(free)

    def model(name):
        return 1 / rate(name, 1)

    def h100(name):
        return 1 / hw[f"k_{name} / 1 warp"][0]

    for name, free in (("ldsm_s32_m256", "ldsm_s16_m128"), ("ldsm_s64_m16", "ldsm_s16_m128"),
                       ("ldsm_s128_m16", "ldsm_s16_m128"), ("lds_s16", "lds_s4"), ("lds_s32", "lds_s4")):
        assert added(name, free, model) == pytest.approx(added(name, free, h100), abs=2.5), name
    flat = 1 / rate("ldsm_s128_m16", 1, ("sass.units.ldst.warp_shared_conflict_bytes_per_cycle=0",)) - model("ldsm_s16_m128")
    assert flat > 1.8 * added("ldsm_s128_m16", "ldsm_s16_m128", h100)


def test_the_predictor_tile_slows_with_four_warps_per_sub_partition_as_on_the_h100():
    """tools/tc_tile_rate.py (recorded on an H200): the fusion workloads' predictor tile with one
    warp per sub-partition and with four (16 warps).  The four warps' tile takes 2.37 times the
    lone warp's on the H100, their shared port busy with the hidden-layer LDSMs' 16 passes each
    (each 8x8 matrix on its own); the model's whole tile and its tile without the global store
    come within 5% at both sizes.  Without the shared store the model stays 11.5% short with 16
    warps (its store read barriers release sooner than the H100's: docs/timing.md)."""
    sys.path.insert(0, str(ROOT / "tools"))
    import tc_tile_rate as TT
    hw = json.loads(TT.RECORDED.read_text())["cycles_per_tile"]
    for kernel in ("k_tiles", "k_tiles_nostg"):
        for warps in (1, 16):
            label = next(k for k, v in TT.WARPS.items() if v == warps)
            assert TT.simulated(kernel, warps, MEAN_FIRST_TOUCH)[0] == pytest.approx(hw[f"{kernel} / {label}"][0],
                                                                                    rel=0.05), (kernel, warps)
    assert TT.simulated("k_tiles_nosts", 16)[0] > 0.85 * hw["k_tiles_nosts / 16 warps"][0]


def test_the_fusion_cuda_core_kernels_mean_block_span_matches_the_h100_at_one_to_four_blocks_an_sm():
    """tools/cd_rate.py (recorded on an H200): w-fusion-cd-only's kernel with 1, 2 and 4 blocks of
    128 threads an SM.  The model's mean block span is within 4% of the H100's at each (3.4%, 3.0%,
    1.0% short).  Not modelled: with four blocks the H100 ends them in launch order (the last wave's
    mean 25% over the first's), so the longest block, the fusion study's span, is 13.8% short."""
    sys.path.insert(0, str(ROOT / "tools"))
    import cd_rate as CR
    hw = json.loads(CR.RECORDED.read_text())["block_span_mean_max_waves"]
    for label, grid in CR.GRIDS.items():
        assert CR.simulated(grid)[0] == pytest.approx(hw[label][0], rel=0.04), label
    waves = hw["4 blocks an SM"][2:]
    assert waves[-1] > 1.2 * waves[0]          # the recording shows the launch-order finish


def test_each_group_reaching_a_bsync_apart_costs_a_lone_warp_the_h100s_switch():
    """Probe reconverge_groups (recorded on an H200): a lone warp whose lanes leave a chain in
    2, 8 or 32 groups, each reaching the chain's BSYNC on its own, spends 17 / 145 / 637 cycles an
    iteration more than when its lanes leave together after the same instructions: about 20 a
    further group.  With sass.group_switch_latency 16 (a BSYNC that leaves its group waiting holds
    the warp that long before the next group runs) the model's cost a further group is within 1.5
    cycles of the H100's (16.0 / 20.4 / 20.5 against 17.0 / 20.7 / 20.5); with the taken-branch
    latency alone (10) it was 10.0 / 14.4 / 14.7."""
    RG = probes.get("reconverge_groups")
    rec = RG.recorded()["k_exit_groups / 1 warp"]

    def added(row, g):              # split - together over the further groups, cycles a warp-iteration
        i = RG.module.GROUPS.index(g)
        return (row[2 * i] - row[2 * i + 1]) / (g - 1)

    now = RG.simulated("k_exit_groups / 1 warp")
    before = RG.simulated("k_exit_groups / 1 warp", ("sass.group_switch_latency=0",))
    for g in (2, 8, 32):
        assert added(now, g) == pytest.approx(added(rec, g), abs=1.5), g
        assert added(before, g) < added(rec, g) - 5, g


def test_the_lanes_that_go_on_after_a_partial_exit_wait_as_after_a_completed_bsync():
    """Probe partial_exit (recorded on an H200): when 31 or 16 lanes of a warp exit, the others
    reach the clock read after the EXIT 8 cycles later than when none exits (21 -> 29 cycles a lone
    warp, 23 -> 31.4 with 16 warps), whether or not the exiting lanes left stores behind.  The model
    holds them sass.reconverge_latency (13) after the EXIT, its stall count being 5: a lone warp's
    cycles across the EXIT within one of the H100's, 16 warps' added cycles within 2.5 (6.5 / 6.5 /
    7.3 against 8.4 / 8.8 / 8.8: the model's 16 warps, leaving their first constant miss together, cross the EXIT 4 cycles
    later than the H100's in every case, 27.5 against 23.0 where none exits); without it they went
    on at the stall count."""
    PE = probes.get("partial_exit")
    rec = PE.recorded()
    cases = PE.cases()

    def across(row, case):
        return row[2 * cases.index(case)]

    for label in ("1 warp", "16 warps"):
        h100, model = rec[f"k_partial_exit / {label}"], PE.simulated(f"k_partial_exit / {label}")
        for case in ("no stores, 31 exit", "no stores, 16 exit", "16 stores, 31 exit"):
            none = case.split(",")[0] + ", none exit"
            if label == "1 warp":
                assert across(model, case) == pytest.approx(across(h100, case), abs=1.0), (label, case)
            added = across(model, case) - across(model, none)
            assert added == pytest.approx(across(h100, case) - across(h100, none), abs=2.5), (label, case)
            assert added > 6, (label, case)


def test_a_group_switchs_wait_is_counted_at_the_instruction_after_the_bsync_as_nsight_compute_does():
    """Nsight Compute counts the wait after a BSYNC that leaves its group waiting at the instruction
    after the BSYNC (CUDA-EC's BSYNC reached by 4.9 groups: 93 cycles there a completion), so the
    model does: with probe reconverge_groups' 8 groups, the instruction after the chain's BSYNC
    gains 16 cycles of wait and branch resolving a further group and iteration over the same
    instructions left together; the kernel's total is what the switches cost, counted once."""
    import simt_sim
    RG = probes.get("reconverge_groups")
    prog = simt_sim.load_program(str(RG.ptx), "k_exit_groups", isa="sass")

    def stalls(mode):
        threads, args = RG.launch_of("k_exit_groups", 32, (8, mode))
        bufs = {n: np.zeros(words, dtype) for n, (dtype, words) in RG.module.BUFFERS.items()}
        res = simt_sim.simulate(simt_sim.Launch(prog, 1, threads, args), bufs, simt_sim.load_config("h100", ["num_sms=1"]))
        return {r["pc"]: r for r in res.stalls_by_pc()}

    split, together = stalls("split"), stalls("together")
    after = 1 + next(pc for pc, r in split.items() if r["instruction"].startswith("BSYNC"))

    def switch_cycles(rows):
        return rows[after]["stalls"].get("wait", 0) + rows[after]["stalls"].get("branch_resolving", 0)

    per_switch = (switch_cycles(split) - switch_cycles(together)) / (7 * RG.module.STEPS)
    assert per_switch == pytest.approx(16, abs=1)
    total = sum(r["cycles"] for r in split.values()) - sum(r["cycles"] for r in together.values())
    assert total / (7 * RG.module.STEPS) == pytest.approx(20.4, abs=1.5)     # probe reconverge_groups' figure


def test_a_constant_operands_first_read_waits_for_its_line_in_the_sub_partitions_cache():
    """tools/imc_miss.py (recorded on an H200): a ULDC of a parameter line the warp's sub-partition
    has not read makes the window 80 cycles against 21 when a word 32 bytes away was read before;
    64 bytes away, or read by a warp of another sub-partition, or by an LDC, it misses all the
    same; read by another warp of the same sub-partition, it hits; two and three misses wait in
    turn (117 / 181).  The model's immediate-constant cache (sass.constants: 64-byte lines per
    sub-partition, 30.5 ns a miss) within 5 cycles of each; without it every case hit (21)."""
    sys.path.insert(0, str(ROOT / "tools"))
    import imc_miss as IM
    rec = json.loads(IM.RECORDED.read_text())["window"]
    cases = ("k_imc_warm32", "k_imc_warm64", "k_imc_warm256", "k_imc_other", "k_imc_same_sp", "k_ldc_then_imc",
             "k_imc_two", "k_imc_three")
    for case in cases:
        h100 = rec[case]["later launches (median)"]
        assert IM.simulated(case, (), 1) == pytest.approx(h100, abs=5), case
    assert IM.simulated("k_imc_warm64", ("sass.constants.imc_miss_ns=0",), 1) < 30
    assert IM.simulated("k_imc_warm64", (), 2) == IM.simulated("k_imc_warm64", (), 1)   # cold every launch


def test_a_warp_waiting_for_an_immediate_constant_counts_as_nsight_computes_imc_miss():
    """The wait at a ULDC whose line is missing is Nsight Compute's imc_miss, at that instruction:
    in tools/imc_miss.py's k_imc_warm64 the window's ULDC c[0x0][0x440] waits 59 of its 60 cycles
    there (the one left is its own issue), the ULDC of 0x400 before it and the prologue's of the
    memory descriptor (0x208) the same, and no other instruction."""
    sys.path.insert(0, str(ROOT / "tools"))
    import imc_miss as IM
    out = IM.simulated_run("k_imc_warm64", (), 1)
    waits = {r["instruction"]: r["stalls"].get("imc_miss", 0) for r in out.stalls_by_pc()}
    cold = ("ULDC UR6, c[0x0][0x440]", "ULDC UR4, c[0x0][0x400]", "ULDC.64 UR4, c[0x0][0x208]")
    assert [waits[i] for i in cold] == [59, 59, 59]
    assert sum(waits.values()) == 3 * 59


def test_an_ldcs_first_read_of_a_line_waits_for_it_once_per_sm_and_launch():
    """tools/imc_miss.py and probe ldc_latency (recorded on an H200): an LDC of a parameter line its SM
    has not read makes the window 128 cycles (64, 128 or 512 bytes from the line an LDC read before;
    after a ULDC of the same line, which does not fill LDC's cache) against 58 after an LDC of the
    same line; the kernel prologue's LDC.64 c[0x0][0x210] 120 against 23 without it.  The model's
    LDC cache (per SM, 34.5 ns a miss) within 2 cycles of the first, 6 of the prologue's."""
    sys.path.insert(0, str(ROOT / "tools"))
    import imc_miss as IM
    LL = probes.get("ldc_latency")
    rec = json.loads(IM.RECORDED.read_text())["window"]
    for case in ("k_ldc_warm", *IM.FIT_CASES["ldc_miss_ns"]):
        assert IM.simulated(case, (), 1) == pytest.approx(rec[case]["later launches (median)"], abs=2), case
    first = LL.recorded()["k_lc_first / 1 warp"][0]
    assert LL.simulated("k_lc_first / 1 warp")[0] == pytest.approx(first, abs=6)
    assert LL.simulated("k_lc_first / 1 warp", ("sass.constants.ldc_miss_ns=0",))[0] < first - 40


def test_the_constant_caches_miss_times_are_the_recordings_fit():
    """`python tools/imc_miss.py --fit` picks each sass.constants miss time (in steps of 0.5 ns)
    that brings the model's windows nearest the H100's over the cases that pin it: the config's
    values do at least as well as their neighbours."""
    sys.path.insert(0, str(ROOT / "tools"))
    import imc_miss as IM
    cfg = load_config("h100")
    for key in IM.FIT_CASES:
        ns = cfg.get(f"sass.constants.{key}")
        assert ns in IM.FIT_NS, key
        assert IM.fit_miss(key, ns) <= min(IM.fit_miss(key, ns - 0.5), IM.fit_miss(key, ns + 0.5)), key


def kernel_ends_tool():
    sys.path.insert(0, str(ROOT / "tools"))
    import kernel_ends as KE
    return KE, json.loads(KE.RECORDED.read_text())


def test_a_constant_miss_while_the_whole_gpu_starts_waits_for_a_request_in_flight_to_come_back():
    """sass.constants.gpu_misses (probe constant_congestion, recorded on the H200): a warp's cold
    ULDC takes 62-72 cycles with 1 to 66 SMs starting, 130 when all 132 start and it falls into
    their start, 72 2,000 cycles later.  The model gives the GPU 256 constant line requests in
    flight: 69 / 123 / 68; without the limit 68 in all three."""
    CC = probes.get("constant_congestion")
    rec = CC.recorded()
    assert load_config("h100").get("sass.constants.gpu_misses") == 256
    for row in ("k_imc_one / 66", "k_imc_one / 132", "k_imc_late / 132", "k_mixed_three / 132"):
        assert CC.simulated(row)[0] == pytest.approx(rec[row][0], rel=0.08)
    assert CC.simulated("k_imc_one / 132", ("sass.constants.gpu_misses=0",))[0] < 0.6 * rec["k_imc_one / 132"][0]


def test_the_gpus_constant_requests_in_flight_are_the_recordings_fit():
    """The old tool's --fit measure: the mean |model - recorded| of the mean windows, every row."""
    CC = probes.get("constant_congestion")

    def fit_error(misses):
        return np.mean([abs(m[0] - r[0]) for _, r, m in CC.replay((f"sass.constants.gpu_misses={misses}",))])
    assert fit_error(256) < min(fit_error(224), fit_error(288))


def test_the_l1_keeps_lines_a_power_of_two_apart_as_it_keeps_neighbouring_ones():
    """memory.l1.hash_sets (probe l1_sets, recorded on the H200): one thread chases 6 to 128
    lines twice; the H100's L1 keeps them all whether they lie 128 B or 1 MiB apart (40-85 cycles a
    load in the second pass, the same at every stride).  A 4-way L1 of 512 sets put lines 64 KiB
    apart into one set and lost all but four of them (282-306 a load); with the sets hashed it
    keeps them as the H100 does."""
    LS = probes.get("l1_sets")
    rec = {row: v[0] for row, v in LS.recorded().items()}
    assert load_config("h100").get("memory.l1.hash_sets") is True
    four_ways = ("memory.l1.hash_sets=false", "memory.l1.ways=4")
    for row in ("l1_chase / 1048576/8", "l1_chase / 1048576/128", "l1_chase / 65536/32"):
        assert LS.simulated(row, MEAN_FIRST_TOUCH)[0] == pytest.approx(rec[row], rel=0.2)
        assert LS.simulated(row, four_ways)[0] > 3 * rec[row]
    assert LS.simulated("l1_chase / 128/128", four_ways)[0] == pytest.approx(rec["l1_chase / 128/128"], rel=0.1)


def test_the_l1_keeps_32_lines_that_fewer_ways_would_put_into_one_set():
    """memory.l1.ways (probe l1_ways, recorded on the H200): one thread chases 4 to 32 lines
    that the model's hashed sets put into one set when its 256 KiB have 4, 8 or 16 ways, twice;
    the GPU keeps all 32 of every family (44-46 cycles a load in the second pass).  32 ways keep
    them too; with 8, family 8's lines miss from 10 lines on, with 4 family 9's from 6."""
    LW = probes.get("l1_ways")
    rec = {row: v[0] for row, v in LW.recorded().items()}
    assert load_config("h100").get("memory.l1.ways") == 32
    for family in LW.module.FAMILIES:
        row = f"l1_chase / {family}/32"
        assert rec[row] < 60
        assert LW.simulated(row)[0] == pytest.approx(rec[row], rel=0.1)
    assert LW.simulated("l1_chase / 8/10", ("memory.l1.ways=8",))[0] > 4 * rec["l1_chase / 8/10"]
    assert LW.simulated("l1_chase / 9/6", ("memory.l1.ways=4",))[0] > 3 * rec["l1_chase / 9/6"]


def test_a_warps_first_code_line_waits_longer_after_nsight_computes_cache_flush():
    """tools/kernel_ends.py (recorded on an H200): with Nsight Compute's caches flushed each warp
    waits a median 160 cycles (1,475 MHz) more no_instruction than without, at its first code
    line (7 without).  The model's warps wait for their first line at their start, its L1 time
    warm (18) and sass.fetch.flushed_first_line_ns (108 ns) more flushed: the lone warp's and
    the 4-warp block's first lines within 25 cycles of the H100's median difference; without
    the key the flush changes nothing."""
    KE, rec = kernel_ends_tool()
    want = np.median([rec["flushed"][k]["no_instruction"] - rec["warm"][k]["no_instruction"] for k in rec["flushed"]])
    assert 140 < want < 180
    for label in ("1 warp", "1 block of 4 warps"):
        mhz = rec["flushed"][f"empty / {label}"]["mhz"]
        warm, flushed = (KE.simulated("empty", label, w, mhz)["no_instruction"] for w in (True, False))
        assert warm == pytest.approx(18, abs=1)
        assert flushed - warm == pytest.approx(want, abs=25), label
        off = ("sass.fetch.flushed_first_line_ns=0",)
        assert KE.simulated("empty", label, False, mhz, off)["no_instruction"] == warm


def test_a_trailing_store_holds_the_kernels_end_until_it_reaches_l2_not_for_its_acknowledgement():
    """tools/kernel_ends.py: k_store with its flag set (an STG just before EXIT) against the same
    SASS with it clear adds 61 / 63 cycles (flushed / warm) to what the kernel takes beyond its
    warp's life, 88 / 70 for a block of 4 warps: far less than the store's L2 write (239 cycles
    in the model).  With sass.store_ack_ns (120) the model's kernel ends that much before the
    write is acknowledged: within 25 cycles of each (65 against the flushed block's 88); without
    it 170 too long.  (132 SMs storing
    at once cost the H100 171-212, the model 84: not modelled.)"""
    KE, rec = kernel_ends_tool()
    for cond in ("flushed", "warm"):
        mhz = rec[cond]["store / 1 warp"]["mhz"]
        for label in ("1 warp", "1 block of 4 warps"):
            h100 = KE.recorded_trailing_store(rec, label, cond)
            assert KE.simulated_trailing_store(label, cond, mhz) == pytest.approx(h100, abs=25), (cond, label)
        whole = KE.simulated_trailing_store("1 warp", cond, mhz, ("sass.store_ack_ns=0",))
        assert whole > KE.recorded_trailing_store(rec, "1 warp", cond) + 150


def test_the_kernel_end_keys_are_the_recordings_fit():
    """`python tools/kernel_ends.py --fit`: sass.fetch.flushed_first_line_ns is the recording's
    median, and sass.store_ack_ns brings the lone warp's trailing store at least as near the
    H100's as its neighbours 5 ns away."""
    KE, rec = kernel_ends_tool()
    cfg = load_config("h100")
    assert cfg.get("sass.fetch.flushed_first_line_ns") == KE.fit_first_line_ns(rec)
    ns = cfg.get("sass.store_ack_ns")
    assert KE.store_ack_error(rec, ns) <= min(KE.store_ack_error(rec, ns - 5), KE.store_ack_error(rec, ns + 5))


def test_dram_lines_fit_gives_h100_yamls_dram_spread_and_refresh():
    """tools/dram_lines.py --fit (recorded on the H200): per-line medians in two groups, 580 and
    770 cycles; a share of the repeats up to 530 cycles longer, clustered in time (a launch of 32
    lines finds none of them slow in 21-29%).  h100.yaml holds the refreshes the fit gives (the
    near and far blocks and the refreshes' 17 groups measured, left off: docs/timing.md), and the
    model's warps spread as the H100's: over the strides of 1 KiB and more, the longest of 8 and
    of 32 lines within 15% of the H100's median (model 988 and 1,144 cycles, H100 893 and 1,115),
    the first to the last within 20% (348 and 564); without the refreshes the lines all come
    together."""
    sys.path.insert(0, str(ROOT / "tools"))
    import dram_lines as DL
    rec = json.loads(DL.RECORDED.read_text())
    got = DL.fit(rec["per_line"])
    assert (got["near_cycles"], got["far_cycles"]) == (580, 770)
    assert got["latency_spread_ns"] == [-48.0, 48.0]
    cfg = load_config("h100")
    assert cfg.get("memory.dram.latency_spread_ns") == []       # measured, left off (docs/timing.md)
    for key in ("refresh_ns", "refresh_interval_ns"):
        assert cfg.get(f"memory.dram.{key}") == got[key], key
    assert got["refresh_units"] == 17 and cfg.get("memory.dram.refresh_units") == 0   # left off (docs/timing.md)
    assert cfg.get("memory.dram.latency_ns") == pytest.approx(268.2 - got["latency_ns_less"], abs=0.15)
    strides = [s for s in DL.STRIDES if s >= 1024]
    for warps in (8, 32):
        hw = np.median([rec["figures"][DL.key("DRAM", s, warps)] for s in strides], axis=0)
        sim = np.median([DL.simulated("DRAM", s, warps) for s in strides], axis=0)
        assert sim[2] == pytest.approx(hw[2], rel=0.15), warps
        assert sim[3] == pytest.approx(hw[3], rel=0.2), warps
    flat = ("memory.dram.refresh_interval_ns=0",)
    assert DL.simulated("DRAM", 4096, 32, flat)[3] < 60


def test_a_memory_instruction_guarded_off_takes_its_pipe_as_one_guarded_on():
    """Probe pred_off (recorded on the H200): LDS.32, STS.32 and L1-hit LDG under a guard false
    for every lane cost the H100 what they cost under a true one (16 warps: 16.3 against 16.6
    cycles an LDS a warp): the LD/ST pipe takes them.  The model's come within 10% of the shared
    accesses' figures and the guarded-off LDGs' (its guarded-on L1-hit LDGs with 16 warps take
    19.7 cycles against 17.3, apart from this); a guarded-off LDS held the pipe for the unit's
    interval instead of a pass before (21.3 cycles with 16 warps)."""
    PO = probes.get("pred_off")
    rec = PO.recorded()
    for row in PO.rows():
        if not row.startswith("k_ldg") or row.endswith("false"):
            assert PO.simulated(row) == pytest.approx(rec[row], rel=0.1), row
    assert rec["k_lds / 16 warps / false"][0] > 0.95 * rec["k_lds / 16 warps / true"][0]


def test_a_dependent_lds_beside_other_warps_lds_bursts_as_the_h100s_up_to_three_loaders():
    """Probe lds_loaded (recorded on the H200): one warp per sub-partition chases dependent
    LDS.32 while 0, 1, 3 or 7 more per sub-partition issue independent LDS bursts.  With up to 3
    the model's chase step and the SM's LDS rate come within 5% of the H100's (32.6 / 33.4 / 36.7
    cycles a step); with 7 the H100's chase steps 41.9 cycles and its SM takes 2.91 LDS a cycle,
    the model's 56.0 and 2.58 (not modelled: docs/timing.md)."""
    LL = probes.get("lds_loaded")
    rec = LL.recorded()
    for loaders in (0, 1, 3):
        row = f"k_lds_loaded / {loaders} loaders"
        sim, hw = LL.simulated(row), rec[row]
        assert sim[0] == pytest.approx(hw[0], rel=0.05), loaders
        assert sim[2] == pytest.approx(hw[2], rel=0.05), loaders


def test_a_barrier_takes_two_cycles_a_warp_at_the_sms_barrier_unit():
    """Probe tile_loop (recorded on the H200): a loop of __syncthreads alone costs the H100 29.7 /
    31.7 / 39.9 / 56.5 / 89.5 cycles an iteration with 1 / 4 / 8 / 16 / 32 warps, 2 more per warp:
    the SM's barrier unit takes one arrival per 2 cycles (sass.sm_unit_cycles BAR) and releases the
    barrier 14 cycles after the last (sass.barrier_latency); the last warp to arrive issues on like
    the others (DEFER_BLOCKING) and waits for the release at its branch.  The model within 3% for
    every warp count, and a barrier after 8 dependent FFMAs within 5% (the FFMAs read their one
    register for two slots once: 142 cycles with 32 warps when read twice).  Without the unit and
    with the scheduler's latency of 4 the 32 warps' loop is 13% short."""
    TL = probes.get("tile_loop")
    rec = TL.recorded()
    for warps in TL.module.BARRIER_WARPS:
        assert TL.simulated(f"k_bar / {warps}", MEAN_FIRST_TOUCH)[0] == pytest.approx(rec[f"k_bar / {warps}"][0],
                                                                               rel=0.03), warps
        assert TL.simulated(f"k_bar_chain / {warps}", MEAN_FIRST_TOUCH)[0] == pytest.approx(
            rec[f"k_bar_chain / {warps}"][0], rel=0.05), warps
    plain = TL.simulated("k_bar / 32", ("sass.sm_unit_cycles={LDC: 2, S2R: 2}", "sass.barrier_latency=4"))[0]
    assert plain < 0.9 * rec["k_bar / 32"][0]


def test_the_sgemm_tile_loop_as_the_h100s():
    """Probe tile_loop: the matmul's shared-memory inner loop alone (8 broadcast LDS.128 and 32
    LDS.32 feeding 32 FFMAs a tile) with 4 to 32 warps: within 5% of the H100's cycles per tile
    (1,548 against 1,547 with 32 warps: the SM's shared port as the H100's for this mix), with a
    barrier after each tile within 4%; staged from L1 as w-matmul-pipeline (cp.async) within 5%
    and as w-matmul-plain (LDG, STS) within 3%; staged from L2 by LDG and STS within 2%, by cp.async
    within 4% with 2 to 8 warps per sub-partition (with one the model is 11% short: each tile's
    copies wait on L2 there)."""
    TL = probes.get("tile_loop")
    rec = TL.recorded()
    for name, rel, warp_counts in (("k_tile", 0.05, TL.module.WARPS), ("k_tile_sync", 0.04, TL.module.WARPS),
                                   ("k_tile_copy", 0.05, TL.module.WARPS), ("k_tile_store", 0.03, TL.module.WARPS),
                                   ("k_tile_copy_l2", 0.04, TL.module.WARPS[1:]), ("k_tile_store_l2", 0.02, TL.module.WARPS)):
        for warps in warp_counts:
            assert TL.simulated(f"{name} / {warps}", MEAN_FIRST_TOUCH)[0] == pytest.approx(rec[f"{name} / {warps}"][0],
                                                                                rel=rel), (name, warps)


def test_a_cp_async_passes_the_data_banks_twice_a_line():
    """sass.copy_line_passes (h100.yaml 2): a cp.async's line is read from L1 (or filled from L2)
    and written into shared memory through the data banks shared accesses use.  probe tile_loop's
    32 warps staging their tiles by cp.async from L2: the H100 2,231 cycles a tile, the model within
    2% with 2 passes a line and 4.7% short with none (every copy free beside the LDS)."""
    TL = probes.get("tile_loop")
    hw = TL.recorded()["k_tile_copy_l2 / 32"][0]
    assert TL.simulated("k_tile_copy_l2 / 32")[0] == pytest.approx(hw, rel=0.02)
    assert TL.simulated("k_tile_copy_l2 / 32", ("sass.copy_line_passes=0",))[0] < 0.96 * hw


def test_a_load_allocating_in_l1_pays_nothing_more_for_its_miss():
    """Probe l1_miss (recorded on the H200): one warp's chase over lines in L2 and not in L1
    steps every 282.2 cycles with LDG.E.STRONG.GPU (ld.global.cg) and with a plain LDG.E, which
    allocates in L1: the H100 charges the L1 miss nothing, and neither does the model (within 1%)."""
    LM = probes.get("l1_miss")
    rec = LM.recorded()
    assert rec["k_chase_ca / 1 warp"] == rec["k_chase_cg / 1 warp"]
    for name in LM.functions:
        assert LM.simulated(f"{name} / 1 warp")[0] == pytest.approx(rec[f"{name} / 1 warp"][0], rel=0.01), name


def test_a_warps_loads_past_l1_deliver_in_the_order_they_issued():
    """sass.loads_in_order (off in h100.yaml, docs/timing.md says why), probe load_pair (recorded
    on the H200): a warp loads a line from DRAM, then another; the second's data are never there
    before the first's (the first's further wait 4.3-4.7 cycles, never over 100), as ld.global.cg,
    .nc and plain ld.global alike, even when the second hits L2 (it then arrives after 691-717
    cycles, the DRAM line's time); an L1 hit does not wait (59 cycles).  The model the same with
    the key on and one block; without it the first-issued DRAM line comes back over 100 cycles
    after the second for 19% of the warps and an L2 hit in 321 cycles."""
    LP = probes.get("load_pair")
    rec = LP.recorded()
    for grid in LP.module.GRIDS:
        for name in ("k_load_pair", "k_load_pair_nc", "k_load_pair_plain"):
            assert rec[f"{name} / {grid}"][1] < 10 and rec[f"{name} / {grid}"][2] == 0
        for name in ("k_load_pair_l2", "k_load_pair_nc_l2"):
            assert rec[f"{name} / {grid}"][0] > 600 and rec[f"{name} / {grid}"][2] == 0
        assert rec[f"k_load_pair_l1 / {grid}"][0] < 100
    on = ("sass.loads_in_order=true",)
    dram, l2, l1 = (LP.simulated(f"{name} / 1", on) for name in ("k_load_pair", "k_load_pair_l2", "k_load_pair_l1"))
    assert dram[1] < 10 and dram[2] == 0
    assert l2[0] > 600 and l2[1] < 10 and l2[2] == 0
    assert l1[0] < 100 and l1[1] > 400
    assert LP.simulated("k_load_pair_nc_l2 / 1", on)[0] > 600
    assert LP.simulated("k_load_pair / 1")[2] > 0.1
    assert LP.simulated("k_load_pair_l2 / 1")[0] < 400


def test_an_sm_and_the_whole_gpu_take_lines_from_l2_at_the_measured_rates():
    """probe l2_rate (recorded on an H200): 1-32 warps a block loading L2 lines 8 at a time.
    One SM's lines per cycle are the model's within 6% (latency- and issue-bound: 0.024-0.334); on
    all 132 SMs the GPU's L2 gives each up to 0.238, which sass.memory.l2.sectors_per_cycle: 144 gives
    within 6% (88, the value before and PTX runs' still: 0.146 with 16 warps, 27% short)."""
    LR = probes.get("l2_rate")
    rec = LR.recorded()
    for row in ("k_l2_rate / 1 / 1", "k_l2_rate / 1 / 32", "k_l2_rate / 132 / 8", "k_l2_rate / 132 / 32"):
        assert LR.simulated(row)[0] == pytest.approx(rec[row][0], rel=0.06), row
    slow = LR.simulated("k_l2_rate / 132 / 16", ("sass.memory.l2.sectors_per_cycle=88",))[0]
    assert slow < 0.8 * rec["k_l2_rate / 132 / 16"][0]


def test_a_warp_arrives_at_a_barrier_once_its_shared_stores_are_written():
    """sass.barrier_after_stores (h100.yaml true): __syncthreads orders the block's shared memory, so a
    warp's arrival counts once its STS are written.  probe tile_loop's 4 warps staging each tile
    by LDG and STS before the barrier: the H100 392 cycles a tile from L1 and 694 from L2, the model
    within 2% (368 and 660, 6% and 5% short, without it); the cp.async and barrier-only loops,
    which store nothing before their barriers, do not move."""
    TL = probes.get("tile_loop")
    rec = TL.recorded()
    off = ("sass.barrier_after_stores=false", *MEAN_FIRST_TOUCH)
    for name in ("k_tile_store", "k_tile_store_l2"):
        hw = rec[f"{name} / 4"][0]
        assert TL.simulated(f"{name} / 4", MEAN_FIRST_TOUCH)[0] == pytest.approx(hw, rel=0.02), name
        assert TL.simulated(f"{name} / 4", off)[0] < 0.96 * hw, name
    for name in ("k_tile_copy", "k_tile_sync"):
        assert TL.simulated(f"{name} / 4", MEAN_FIRST_TOUCH)[0] == TL.simulated(f"{name} / 4", off)[0], name


def test_a_parameters_first_ldc_does_not_wait_behind_the_sms_stores():
    """probe ldc_behind_stores (recorded on the H200): thread 0 of each block (one an SM) times a
    read right after its block's stores and barrier.  An LDC of a parameter line nothing has read
    takes 92-100 cycles however many stores came before, on one SM or all: the model's LDC miss
    (sass.constants.ldc_miss_ns) within 10%, and it too does not wait.  An L2 load does wait on the
    GPU, the more stores the GPU made (132 SMs: 85 / 273 / 545 cycles over the drained 301 after
    3 / 9 / 18 stores a thread), which the model does not (docs/timing.md); 4,000 cycles later
    the load is an L2 hit in both."""
    LB = probes.get("ldc_behind_stores")
    rec = {row: v[0] for row, v in LB.recorded().items()}          # the mean windows
    for name in ("k_s0_ldc", "k_s18_ldc"):
        for blocks in (1, 132):
            assert LB.simulated(f"{name} / {blocks}")[0] == pytest.approx(rec[f"{name} / {blocks}"], rel=0.1)
    drained = rec["k_s9_ldg_late / 132"]
    assert LB.simulated("k_s9_ldg_late / 132")[0] == pytest.approx(drained, rel=0.05)
    behind = [rec[f"k_s{n}_ldg / 132"] - drained for n in (3, 9, 18)]
    assert 50 < behind[0] < behind[1] < behind[2] and behind[2] > 1.8 * behind[1]


def test_what_a_load_right_after_the_sms_stores_waits_for():
    """probe ldc_behind_stores's second recording (2026-12-02, H200): an LDC of a line thread 0
    read before the stores hits in 58 cycles after 0 or 9 stores a thread, on 1 to 132 SMs (the
    model 60-69).  The L2 load's wait behind the stores goes with the sectors stored, not the store
    instructions: one-sector stores (lanes 0-7) cost 132 SMs 12 cycles where whole lines cost
    274, and one SM's 9 lines a warp (288 sectors, +130) and 18 (576, +296) leave at about 2 sectors
    a cycle; it is gone 250 cycles after the barrier on one SM, 1,000 on 132 (not modelled).
    Under Nsight Compute (`ncu --cache-control all`, ldc_behind_stores-ncu.json) the LDC
    windows are the plain run's within 3%: the profiler adds no wait to a block's epilogue LDC."""
    LB = probes.get("ldc_behind_stores")
    rec = {row: v[0] for row, v in LB.recorded().items()}          # the mean windows
    for stores in (0, 9):
        for blocks in (1, 132):
            hit = rec[f"k_s{stores}_ldchit / {blocks}"]
            assert 55 <= hit <= 61
            assert LB.simulated(f"k_s{stores}_ldchit / {blocks}")[0] == pytest.approx(hit, rel=0.2)
    drained = rec["k_s9_ldg_d2000 / 132"]
    assert rec["k_s9_sector_ldg / 132"] - drained < 0.1 * (rec["k_s9_ldg / 132"] - drained)
    one_sm = [rec[f"k_s{n}_ldg / 1"] - rec["k_s9_ldg_d2000 / 1"] for n in (9, 18)]
    assert [8 * n * 4 / wait for n, wait in zip((9, 18), one_sm)] == pytest.approx([2.0, 2.0], rel=0.15)
    assert rec["k_s9_ldg_d250 / 1"] == pytest.approx(rec["k_s9_ldg_d2000 / 1"], rel=0.03)
    assert rec["k_s9_ldg_d250 / 132"] > 1.1 * drained
    assert rec["k_s9_ldg_d1000 / 132"] == pytest.approx(drained, rel=0.03)
    profiled = LB.module.ncu_recorded_windows()
    for name in ("k_s0_ldc", "k_s9_ldc", "k_s18_ldc", "k_s9_ldchit"):
        for blocks in ("1", "132"):
            assert profiled[f"{name} / {blocks}"][0] == pytest.approx(rec[f"{name} / {blocks}"], rel=0.03)


def test_seed003s_loop_phase_by_phase_beside_the_h100():
    """tools/pipe_phases.py (recorded 2026-12-02 on an H200): w-pipe-plain's loop with clocks around
    the load's wait and the chain, 4 blocks of 128-1,024 threads, the host's copies in L2.  Without
    its load the chain's contention is the H100's within 4% at 1-8 warps a sub-partition, and the
    warps share the slots nearly evenly, as `grr`'s do (eight warps: 273-293 cycles a
    warp-iteration; oldest-first 124-349).  With the load the H100's warps of a sub-partition drift apart, so
    that their chains do not meet (2 warps: 0.0 other chains beside a warp's, 4: 0.30), where
    `grr`'s stay in lockstep (0.98, 2.67; 4 warps 638 cycles an iteration against 553); `oldest`
    gives the H100's phases (0.0, 0.18).  With eight warps the H100's chains crowd one another
    (186 cycles against 113 alone), more than any policy's do (not modelled).  The kernel's SASS
    reads %warpid as SR_VIRTID's bits 8-14 and adds a 64-bit negative constant with
    IADD3.X R, R, -0x1: both as on the H100."""
    sys.path.insert(0, str(ROOT / "tools"))
    import pipe_phases as PP
    doc = json.loads(PP.RECORDED.read_text())
    hw = doc["phases"]
    for label, threads in PP.SETS.items():
        mean, (fastest, slowest) = PP.simulated_chain(threads)
        assert mean == pytest.approx(doc["chain_only"][label], rel=0.04)
        hw_fastest, hw_slowest = doc["chain_only_range"][label]
        assert hw_slowest < 1.1 * hw_fastest and slowest < 1.1 * fastest
    fastest, slowest = PP.simulated_chain(PP.SETS["8 warps/SMSP"], ("scheduler.policy=oldest",))[1]
    assert slowest > 2 * fastest
    for label in ("1 warp/SMSP", "2 warps/SMSP"):
        assert PP.simulated(PP.SETS[label])["iteration"] == pytest.approx(hw[label]["iteration"], rel=0.04)
    assert hw["2 warps/SMSP"]["chains_beside"] < 0.1 and hw["4 warps/SMSP"]["chains_beside"] < 0.5
    assert PP.simulated(PP.SETS["4 warps/SMSP"])["chains_beside"] > 2          # grr: lockstep
    oldest = [PP.simulated(PP.SETS[k], ("scheduler.policy=oldest",)) for k in ("2 warps/SMSP", "4 warps/SMSP")]
    assert oldest[0]["chains_beside"] < 0.1 and oldest[1]["chains_beside"] < 0.5
    assert oldest[1]["iteration"] == pytest.approx(hw["4 warps/SMSP"]["iteration"], rel=0.03)
    crowded = hw["8 warps/SMSP"]
    assert crowded["chain"] > 1.4 * hw["4 warps/SMSP"]["chain"] and crowded["chains_beside"] > 2


def test_alu_and_fma_heavy_warps_fall_out_of_step_with_a_greedy_turn_as_on_the_h100():
    """probe alu_rate (recorded 2026-12-02 on an H200): loops of 8 independent chains of SHF,
    LOP3 or IMAD, 1-8 warps a sub-partition.  SHF and LOP3 share the ALU at one per 2 cycles (18
    of them with the loop's ISETP: 38.3 cycles a warp-iteration, whichever the mix), and one pipe's
    loops come within 4% with grr at every set.  Where a warp's loop alternates between the ALU and
    the FMA-heavy pipe, the H100's warps fall out of step and each pipe serves one while the other
    uses the other pipe (seed 003's round with 4 warps: 35.1 cycles, the ALU's bound);
    grr's stay in step, each pipe shared by all in turn (41.4).  scheduler.greedy_cycles 2 (an
    unhinted warp keeps its turn through a stall of 2 cycles, and only a warp passed over for a
    pipe other than the FP32 and integer ones keeps the turn) gives the H100's 35.6.  Not
    reached: two warps of SHF then IMAD blocks (H100 23.1, model 31.5 either way)."""
    AR = probes.get("alu_rate")
    hw = AR.recorded()
    grr, greedy = ("sass.greedy_cycles=1",), ("sass.greedy_cycles=2",)
    for name in AR.functions:
        lone = f"{name} / 1/SMSP"
        assert AR.simulated(lone, grr)[0] == pytest.approx(hw[lone][0], rel=0.01), name
        assert AR.simulated(lone, greedy)[0] == pytest.approx(hw[lone][0], rel=0.01), name
    for name in ("k_shf", "k_lop", "k_imad", "k_shf_lop"):
        for label in ("4/SMSP", "8/SMSP"):
            for over in (grr, greedy):
                row = f"{name} / {label}"
                assert AR.simulated(row, over)[0] == pytest.approx(hw[row][0], rel=0.04), (name, label, over)
    assert hw["k_shf_lop / 8/SMSP"][0] > 1.9 * 19                  # SHF and LOP3: one pipe
    for row in ("k_mix / 2/SMSP", "k_mix / 4/SMSP", "k_mix / 8/SMSP", "k_lop_imad / 4/SMSP", "k_lop_imad / 8/SMSP"):
        assert AR.simulated(row, greedy)[0] == pytest.approx(hw[row][0], rel=0.02), row
    assert AR.simulated("k_mix / 4/SMSP", grr)[0] > 1.15 * hw["k_mix / 4/SMSP"][0]   # grr: in step


def test_sass_reads_warpid_from_sr_virtid():
    """ptxas reads %warpid as S2R SR_VIRTID, then bits 8-14 of it (SHF.R.U32.HI 0x8, SGXT.U32 0x7)."""
    sys.path.insert(0, str(ROOT / "tools"))
    import pipe_phases as PP
    import simt_sim
    prog = simt_sim.load_program(str(PP.PTX), "chain_only", isa="sass")
    res = simt_sim.run_functional(prog, PP.BLOCKS, 256, ["out", "info", 4], PP.chain_buffers(256))
    info = res.outputs["info"].reshape(-1, 4)
    assert info[:, 3].tolist() == [w % 8 for w in range(len(info))]
