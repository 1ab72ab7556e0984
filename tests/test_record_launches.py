"""`simt-sim hw record` with several kernel launches, without a GPU: a fake cupy records what the
recorder asks of the GPU (launches, streams, events), so these tests check that a manifest's
more_launches run in order on the right streams, that the whole sequence is timed between two
events after a blocker kernel, and that ncu's per-launch rows are grouped and summed."""
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from simt_sim.calibrate import record
from simt_sim.programs import program_dir

ROOT = Path(__file__).resolve().parent.parent
KERNEL_MS = {"tc_kernel": 0.25, "cd_kernel": 0.5}     # what each fake kernel "takes"
TRUE_CLOCK_KHZ = 1_755_000                           # the fake GPU's SM clock


class FakeGPU:
    """Stands in for the cupy module: device arrays are numpy arrays, kernels only log their call
    and advance a clock, events read that clock."""

    def __init__(self):
        self.log = []                 # ("launch", name, grid, block, args, stream) / ("record", ...) / ...
        self.now_ms = 0.0
        self.current = [None]         # stream stack (None: the default stream)
        gpu = self

        class Stream:
            def __init__(self, null=False, non_blocking=False):
                self.non_blocking = non_blocking

            def __enter__(self):
                gpu.current.append(self)
                return self

            def __exit__(self, *exc):
                gpu.current.pop()

            def wait_event(self, event):
                gpu.log.append(("wait", self, event))

        class Event:
            def record(self, stream=None):
                self.t = gpu.now_ms
                gpu.log.append(("record", self, stream))

            def synchronize(self):
                pass

        class Kernel:
            def __init__(self, name):
                self.name = name

            def __call__(self, grid, block, args, shared_mem=0):
                gpu.log.append(("launch", self.name, grid, block, args, gpu.current[-1]))
                if self.name == "spin":            # spin(cycles, spun): as many cycles as asked
                    args[1][0] = int(args[0])
                    gpu.now_ms += int(args[0]) / TRUE_CLOCK_KHZ
                else:
                    gpu.now_ms += KERNEL_MS.get(self.name, 0.1)

        class Module:
            def __init__(self, path):
                self.path = path

            def get_function(self, name):
                return Kernel(name)

            def get_global(self, name):
                return types.SimpleNamespace(ptr=0)

        runtime = types.SimpleNamespace(
            getDeviceCount=lambda: 1, deviceSynchronize=lambda: None, memset=lambda *a: None,
            memcpy=lambda *a: None, driverGetVersion=lambda: 13000, runtimeGetVersion=lambda: 13000,
            getDeviceProperties=lambda i: {"name": b"Fake H100", "multiProcessorCount": 132,
                                           "clockRate": 1980000, "memoryClockRate": 2619000})
        self.cuda = types.SimpleNamespace(Stream=Stream, Event=Event, runtime=runtime,
                                          get_elapsed_time=lambda a, b: b.t - a.t)
        self.RawModule = lambda path: Module(path)

    asarray = staticmethod(lambda a: np.array(a, copy=True))
    asnumpy = staticmethod(np.asarray)
    zeros = staticmethod(np.zeros)

    def launches(self):
        return [e for e in self.log if e[0] == "launch" and e[1] != "spin"]


@pytest.fixture
def gpu(monkeypatch, tmp_path):
    fake = FakeGPU()
    monkeypatch.setitem(sys.modules, "cupy", fake)
    # no nvcc -cubin: the fake module loads "from" the source path
    monkeypatch.setattr(record, "compile_module", lambda cupy, source, cubin: cupy.RawModule(path=str(source)))
    monkeypatch.setattr(record, "_SCRATCH", {})
    return fake


def prepared(gpu, name, tmp_path, variant="plain"):
    return record.Prepared(gpu, program_dir(name), variant, tmp_path)


def test_two_streams_run_every_launch_on_its_own_stream(gpu, tmp_path):
    p = prepared(gpu, "w-fusion-streams", tmp_path)
    dev = p.launch()
    (_, k0, g0, b0, a0, s0), (_, k1, g1, b1, a1, s1) = gpu.launches()
    assert (k0, g0, b0) == ("tc_kernel", (528, 1, 1), (128, 1, 1))
    assert (k1, g1, b1) == ("cd_kernel", (528, 1, 1), (128, 1, 1))
    assert s0 is not s1 and s0.non_blocking and s1.non_blocking
    assert a0[5] is dev["clk"] and a1[2] is dev["clk"]          # the launches share the buffers
    assert a0[6] == 0 and a1[3] == 528 and isinstance(a1[3], np.integer)


def test_recorded_outputs_come_from_launches_queued_behind_the_blocker(gpu, tmp_path):
    """The outputs (block clocks) of a multi-launch program: both launches wait for the blocker
    kernel's end, so concurrent streams start together on the GPU."""
    p = prepared(gpu, "w-fusion-streams", tmp_path)
    spin = gpu.RawModule("spin").get_function("spin")
    p.launch()
    p.launch(spin)
    kinds = [(e[0], e[1] if e[0] == "launch" else None) for e in gpu.log if e[0] in ("launch", "wait", "record")]
    assert kinds == [("launch", "tc_kernel"), ("launch", "cd_kernel"),          # the loading run
                     ("launch", "spin"), ("record", None), ("wait", None), ("wait", None),
                     ("launch", "tc_kernel"), ("launch", "cd_kernel")]
    blocker_end = next(e[1] for e in gpu.log if e[0] == "record")
    waits = [e for e in gpu.log if e[0] == "wait"]
    assert all(event is blocker_end for _, _, event in waits)
    launches = gpu.launches()
    assert {launches[2][5], launches[3][5]} == {stream for _, stream, _ in waits}
    assert launches[2][5] is not launches[3][5]


def test_a_single_launch_is_not_held_behind_the_blocker(gpu, tmp_path):
    p = prepared(gpu, "w-fusion-ptb", tmp_path)
    p.launch(gpu.RawModule("spin").get_function("spin"))
    assert [e[1] for e in gpu.log if e[0] == "launch"] == ["ptb"]


def test_one_stream_runs_the_launches_in_order_on_one_stream(gpu, tmp_path):
    prepared(gpu, "w-fusion-serial", tmp_path).launch()
    first, second = gpu.launches()
    assert [first[1], second[1]] == ["tc_kernel", "cd_kernel"]
    assert first[5] is second[5]


def test_single_launch_program_has_one_step(gpu, tmp_path):
    p = prepared(gpu, "w-fusion-ptb", tmp_path)
    p.launch()
    assert [s.name for s in p.steps] == ["ptb"]
    assert [(e[1], e[2], e[3]) for e in gpu.launches()] == [("ptb", (264, 1, 1), (256, 1, 1))]


def test_mask_trace_variant_runs_the_main_launch_only(gpu, tmp_path):
    p = prepared(gpu, "w-fusion-serial", tmp_path, "trace")
    assert [s.name for s in p.steps] == ["tc_kernel"]


def test_elapsed_times_the_whole_sequence_between_two_events(gpu, tmp_path):
    p = prepared(gpu, "w-fusion-streams", tmp_path)
    spin = gpu.RawModule("spin").get_function("spin")
    e = p.elapsed(spin, clock_khz=2_000_000.0, repeats=5, warmup=2)
    # the fake runs kernels one after the other: the sum of both, every time
    assert e["ms"] == pytest.approx(0.75)
    assert e["cycles"] == round(0.75 * 2_000_000)
    assert (e["repeats"], e["warmup"], e["launches"]) == (5, 2, 2)
    assert gpu.launches()[:2] == gpu.launches()[2:4]          # every run launches the same two kernels
    # one run: spin on the master stream, start, every stream waits for start, launches, stop last
    kinds = [(ev[0], ev[1] if ev[0] == "launch" else None) for ev in gpu.log]
    first_run = kinds[:kinds.index(("launch", "spin"), 1)]
    assert first_run == [("launch", "spin"), ("record", None), ("wait", None), ("wait", None),
                         ("launch", "tc_kernel"), ("launch", "cd_kernel"), ("record", None), ("wait", None),
                         ("record", None), ("wait", None), ("record", None)]


def test_sm_clock_is_measured_from_the_spin_kernel(gpu):
    spin = gpu.RawModule("spin").get_function("spin")
    assert record.measure_sm_clock_khz(gpu, spin, 132) == pytest.approx(TRUE_CLOCK_KHZ)


def test_record_keeps_outputs_elapsed_and_launch_kernels(gpu, monkeypatch):
    refs = record.record(["w-fusion-serial"], ROOT, with_ncu=False)
    ref = refs["w-fusion-serial"]
    assert ref["launch_kernels"] == ["tc_kernel", "cd_kernel"]
    assert set(ref["outputs"]) == {"x", "w1", "w2", "logits", "pred", "cd_in", "cd_out", "clk"}
    assert ref["elapsed"]["launches"] == 2 and ref["elapsed"]["repeats"] == record.ELAPSED_REPEATS
    assert ref["elapsed"]["ms"] == pytest.approx(0.75)
    assert ref["provenance"]["measured_sm_clock_khz"] == pytest.approx(TRUE_CLOCK_KHZ)
    assert ref["elapsed"]["cycles"] == round(0.75 * TRUE_CLOCK_KHZ)


def ncu_csv(kernels: list[str]) -> str:
    cols = ["ID", "Kernel Name"] + record.NCU_METRICS + record.STALL_METRICS
    lines = [",".join(f'"{c}"' for c in cols), ",".join('""' for _ in cols)]          # header, units
    for i, k in enumerate(kernels):
        vals = [str(i), k] + [str(1000 * (i + 1) + j) for j in range(len(record.NCU_METRICS))]
        vals += [str(float(i + 1))] * len(record.STALL_METRICS)
        lines.append(",".join(f'"{v}"' for v in vals))
    return "==PROF== noise\n" + "\n".join(lines) + "\n"


def test_profile_groups_rows_by_program_repeat_and_launch(monkeypatch):
    # two programs: w-fusion-serial (2 launches) and w-fusion-ptb (1), 2 repeats each
    order = ["tc_kernel", "cd_kernel"] * 2 + ["ptb"] * 2
    monkeypatch.setattr(record.subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(
        a, 0, stdout=ncu_csv(order), stderr=""))
    out = record.profile(["w-fusion-serial", "w-fusion-ptb"], ROOT, 2)
    assert [[[d["kernel"] for d in rep] for rep in prog] for prog in out] == [
        [["tc_kernel", "cd_kernel"], ["tc_kernel", "cd_kernel"]], [["ptb"], ["ptb"]]]
    monkeypatch.setattr(record.subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(
        a, 0, stdout=ncu_csv(order[:-1]), stderr=""))
    with pytest.raises(RuntimeError, match="returned 5 profiled launches, expected 6"):
        record.profile(["w-fusion-serial", "w-fusion-ptb"], ROOT, 2)


def test_summed_counters_add_counts_and_weight_stall_ratios():
    stall = record.STALL_METRICS[0]
    a = {m: 10.0 for m in record.NCU_METRICS} | {stall: 1.0, "kernel": "a"}
    b = {m: 30.0 for m in record.NCU_METRICS} | {stall: 3.0, "kernel": "b"}
    s = record.summed_counters([a, b])
    assert s["sm__cycles_elapsed.max"] == 40.0 and s["smsp__inst_executed.sum"] == 40.0
    assert s[stall] == pytest.approx((1.0 * 10 + 3.0 * 30) / 40)
    assert s["kernel"] == "a+b"
    assert record.summed_counters([a]) is a


# ---- the simulator side: simt-sim validate on a multi-launch program ------------------------------

def reference_from(result, extra: dict) -> dict:
    outputs = {n: {"dtype": str(a.dtype), "hex": np.ascontiguousarray(a).tobytes().hex()}
               for n, a in result.outputs.items()}
    return {"program": "two-streams", "kernel": "saxpy", "provenance": {}, "outputs": outputs, "ncu": [], **extra}


@pytest.fixture(scope="module")
def two_streams(tmp_path_factory):
    """programs/examples/two-streams (saxpy in stream 0, an FFMA loop in stream 1) and its simulated run."""
    import shutil
    import simt_sim
    d = tmp_path_factory.mktemp("p") / "two-streams"
    shutil.copytree(program_dir("two-streams"), d)
    (d / "reference").mkdir()
    return d, simt_sim.run_program(d)


def test_validate_simulates_every_launch_and_compares_elapsed(two_streams):
    import json
    from simt_sim.calibrate.compare import validate_program, format_table, summarize
    from simt_sim.machine.config import load_config
    d, result = two_streams
    assert len(result.metrics) == 2 and result.outputs["o"].any()        # the FFMA launch wrote o
    # the H100 is timed by CUDA events: the simulated side gets the config's event overhead
    sim_elapsed = result.cycles + load_config("h100").get("host.event_overhead")
    hw = sim_elapsed * 1.25
    (d / "reference" / "h100.json").write_text(json.dumps(reference_from(result, {
        "elapsed": {"ms": hw / 1.98e6, "cycles": hw, "repeats": 20}})))
    row = validate_program(d)
    assert row["outputs_match"], row["notes"]
    assert row["launches"] == 2 and row["sim_cycles"] == result.cycles
    assert row["sim_elapsed_cycles"] == sim_elapsed > result.cycles
    assert row["hw_cycles"] == hw and row["cycle_error_pct"] == pytest.approx(-20.0)
    assert row["elapsed_error_pct"] == pytest.approx(-20.0)
    insts = [k["warp_instructions"] for k in result.metrics]
    assert row["sim_warp_instructions"] == sum(insts)
    assert row["sim_cfe"] == pytest.approx(sum(k["cfe"] * n for k, n in zip(result.metrics, insts)) / sum(insts))
    assert "elapsed (2 launches, CUDA events): sim" in format_table([row], summarize([row]))


def test_validate_notices_a_launch_left_out(two_streams):
    import json
    from simt_sim.calibrate.compare import validate_program
    d, result = two_streams
    ref = reference_from(result, {})
    ref["outputs"]["o"]["hex"] = np.zeros_like(result.outputs["o"]).tobytes().hex()   # as if ffma never ran
    (d / "reference" / "h100.json").write_text(json.dumps(ref))
    row = validate_program(d)
    assert not row["outputs_match"] and row["notes"][0].startswith("o: differs")
    assert row.get("hw_cycles") is None and "cycle_error_pct" not in row
