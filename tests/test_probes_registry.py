"""The calibration probe registry (simt_sim/calibrate/probes/, `simt-sim probe`): every registered
probe replays from its recording under references/ (no GPU needed), the config values it pins are
the ones its recording picks among their candidates (`--fit`), and its checked rows match the
recording.  The full replay of every row is slow: `python -m pytest --run-slow`."""
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from simt_sim.calibrate.probes import REGISTERED, get
from simt_sim.calibrate.probes.base import REFERENCES
from simt_sim.machine.config import load_config

ROOT = Path(__file__).resolve().parents[1]
H100 = load_config("h100")
FITTED = [(n, k) for n in REGISTERED for k in get(n).fit_candidates]


@pytest.mark.parametrize("name", REGISTERED)
def test_every_probe_declares_its_kernels_keys_rows_and_recording(name):
    p = get(name)
    assert p.meaning and "\n" not in p.meaning
    for f in (p.kernels, p.ptx, p.ptx.with_suffix(".sm_90.cubin")):
        assert f.is_file(), f
    for key in p.keys:
        assert H100.get(key) is not None, f"{name} pins {key}, which h100.yaml does not hold"
    assert set(p.fit_candidates) <= set(p.keys)
    doc = p.document()
    assert p.recording.parent.parent == REFERENCES and p.recording.stem == name
    assert "device" in doc or "tool" in doc, "a recording says where it comes from"
    if "device" in doc:
        assert p.recording.parent.name in doc["device"].lower(), "references/<gpu>/ names the recording's GPU"
    recorded = p.recorded()
    assert set(recorded) == set(p.rows()), "every function x set is recorded, nothing else"
    assert set(p.fit_rows) <= set(p.rows()) and set(p.checks) <= set(p.rows())
    if p.ncu:                       # Nsight Compute's recording beside the timing one
        assert p.ncu_recording.parent.parent == REFERENCES and p.ncu_recording.stem == f"{name}-ncu"
        assert p.ncu["metrics"] and p.ncu["launches"] >= 1
        assert set(p.ncu_recorded()) == set(p.ncu_rows()) and set(p.ncu_rows()) <= set(p.rows())
    for other in p.recordings:
        assert other.is_file() and other.parent.parent == REFERENCES and other.stem.startswith(name), other


def test_every_recording_under_references_belongs_to_a_probe():
    owned = {r for n in REGISTERED for r in get(n).recordings}
    assert set(REFERENCES.glob("*/*.json")) == owned


@pytest.mark.parametrize("name,key", FITTED)
def test_the_value_a_probe_fits_is_the_configs(name, key):
    """The candidate of a pinned key whose model lies closest to the recording is h100.yaml's."""
    fit = get(name).fit()[key]
    errors = fit["errors"]
    assert fit["best"] == H100.get(key), f"{name}: {errors}"
    assert sorted(errors.values())[0] < sorted(errors.values())[1], f"one candidate is closest: {errors}"


@pytest.mark.parametrize("name", [n for n in REGISTERED if get(n).checks])
def test_a_probes_checked_rows_match_its_recording(name):
    p = get(name)
    for row, rec, model in p.replay(rows=tuple(p.checks)):
        assert model == pytest.approx(rec, rel=p.checks[row], nan_ok=True), row


@pytest.mark.slow
@pytest.mark.parametrize("name", REGISTERED)
def test_every_row_of_a_probe_replays(name):
    p = get(name)
    for row, rec, model in p.replay():
        assert len(model) == len(rec), row
        # a figure the probe does not have for a row (nan: that side does not run) is missing in both
        assert [math.isnan(v) for v in model] == [math.isnan(v) for v in rec], (row, rec, model)
        assert all(v >= 0 for v in model if not math.isnan(v)), (row, model)


def cli(*args):
    return subprocess.run([sys.executable, "-m", "simt_sim", "probe", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


def test_probe_list_names_each_probe_once_with_its_keys():
    r = cli("--list")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert [ln.split()[0] for ln in lines] == list(REGISTERED)
    xu = next(ln for ln in lines if ln.startswith("xu_rate "))
    assert "units.sfu.lanes" in xu and "XU pipe" in xu


@pytest.mark.parametrize("args,message", [
    (("no_such_probe",), "unknown probe 'no_such_probe'; known: xu_rate"),
    ((), "name a probe, or --list"),
    (("ldc_latency", "--set", "sass.constants"), "--set expects key=value"),
    (("hmma_beside", "--fit"), "probe hmma_beside pins no key to fit"),
])
def test_probe_refuses_bad_input_without_a_traceback(args, message):
    r = cli(*args)
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_probe_gpu_without_cupy_says_so():
    try:
        import cupy  # noqa: F401
        pytest.skip("cupy is installed here")
    except ImportError:
        pass
    r = cli("xu_rate", "--gpu")
    assert r.returncode == 2 and "needs cupy and a CUDA GPU" in r.stderr and "Traceback" not in r.stderr


def test_probe_replays_one_against_its_recording_as_a_table_and_json(tmp_path):
    r = cli("ldc_latency", "--json", str(tmp_path / "rows.json"))
    assert r.returncode == 0, r.stderr
    assert "references/h100/ldc_latency.json" in r.stdout
    rows = {d["row"]: d for d in json.loads((tmp_path / "rows.json").read_text())}
    assert rows["k_lc_first / 1 warp"]["recorded"] == [120.0]
    assert rows["k_lc_indexed / 1 warp"]["recorded"] == [754.0]
    # the window of a parameter's LDC.64: its latency (30) beyond the pointer formed before it
    assert rows["k_lc_first / 1 warp"]["model"][0] - rows["k_lc_none / 1 warp"]["model"][0] > 30


def test_docs_list_every_probe_with_its_meaning_keys_and_recording():
    table = [ln for ln in (ROOT / "docs" / "probes.md").read_text().splitlines() if ln.startswith("| ")]
    listed = {ln.split(" | ")[0][2:]: ln for ln in table}
    for name in REGISTERED:
        p = get(name)
        assert name in listed, f"docs/probes.md: add {name}"
        assert p.meaning in listed[name] and p.module.RECORDING in listed[name], name
        assert all(k in listed[name] for k in p.keys), name


def ncu_csv(path, launches: int, metrics, value):
    """ncu's CSV (`ncu --csv --log-file`) of `launches` profiled launches, each metric value(i, m)."""
    lines = ['==PROF== Connected to process 1', '"ID","Kernel Name","Metric Name","Metric Value"']
    lines += [f'"{i}","k","{m}","{value(i, m):,}"' for i in range(launches) for m in metrics]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_an_ncu_csv_becomes_the_recording_beside_the_timing_one(tmp_path):
    """dmul_phase's ncu recording: per row, the median over its launches after the first of each
    stall reason's warp-cycles (per issued instruction x instructions) per warp-iteration."""
    p = get("dmul_phase")
    rows, n = p.ncu_rows(), p.ncu["launches"]
    assert n == 9 and len(rows) == 36

    def value(i, m):                 # launch i of row i // 9: 1000 + 100 x its index among the 9 instructions
        return 1000 + 100 * (i % n) if m == "smsp__inst_executed.sum" else 0.5 * (i // n + 1)
    doc = p.ncu_from_csv(ncu_csv(tmp_path / "n.csv", n * len(rows), p.ncu["metrics"], value))
    fig = doc["stalls_per_warp_iteration"]
    # row 0 (k_f0 / 1 warp/SMSP, 4 warps x 256 iterations): launches 1-8 give 0.5 x (1100 .. 1800), median 0.5 x 1450
    assert fig["k_f0 / 1 warp/SMSP"]["wait"] == round(0.5 * 1450 / (4 * 256), 3)
    assert fig["k_d4 / 8 warps/SMSP, pad 7"]["selected"] == round(36 * 0.5 * 1450 / (32 * 256), 3)
    assert doc["metrics"] == list(p.ncu["metrics"]) and list(fig) == rows
    with pytest.raises(Exception, match="profiled launches, expected 324"):
        p.ncu_from_csv(ncu_csv(tmp_path / "m.csv", 10, p.ncu["metrics"], value))


def test_probe_ncu_options_round_trip_without_a_gpu(tmp_path):
    r = cli("control_rate", "--ncu-metrics")
    assert r.returncode == 0 and "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio" in r.stdout
    p = get("control_rate")
    csv_file = ncu_csv(tmp_path / "c.csv", 2 * len(p.ncu_rows()), p.ncu["metrics"], lambda i, m: i + 1.0)
    r = cli("control_rate", "--ncu-csv", str(csv_file), "--out", str(tmp_path / "rec.json"))
    assert r.returncode == 0, r.stderr
    rec = json.loads((tmp_path / "rec.json").read_text())["per_warp_iteration"]
    assert rec["k_loop / 1 warp"]["pipe_cbu"] == 2.0            # the row's second launch kept
    assert rec["k_lds / 8 on 1 SMSP"]["wait"] == round(140.0 * 140.0 / (8 * 256), 3)
    r = cli("dmul_phase", "--ncu", "--json", str(tmp_path / "rows.json"))
    assert r.returncode == 0 and "references/h100/dmul_phase-ncu.json" in r.stdout, r.stderr
    lone = next(d for d in json.loads((tmp_path / "rows.json").read_text()) if d["row"] == "k_f0 / 1 warp/SMSP")
    assert lone["recorded"]["branch_resolving"] == pytest.approx(3.1, abs=0.1)
    assert lone["model"]["branch_resolving"] == pytest.approx(lone["recorded"]["branch_resolving"], abs=0.5)
    for args, message in ((("xu_rate", "--ncu"), "probe xu_rate has no Nsight Compute recording"),
                          (("alu_rate", "--ncu-launches"), "--ncu-launches launches on the GPU: add --gpu"),
                          (("alu_rate", "--ncu-csv", str(tmp_path / "none.csv")), "no such file")):
        r = cli(*args)
        assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr, (args, r.stderr)
