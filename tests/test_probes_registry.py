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


def test_every_recording_under_references_belongs_to_a_probe():
    owned = {get(n).recording for n in REGISTERED}
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
