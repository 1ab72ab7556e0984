"""docs/timing.md's generated table, "Model elements and where their values come from": current,
and read from the declarations (the config schema, configs/h100.yaml, the probe registry, sass_fit's
FITS and the TOOLS table of simt_sim/calibrate/probes/doc.py)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from simt_sim.calibrate.probes import all_probes, doc
from simt_sim.machine.config import LAUNCH_KEYS, key_of
from simt_sim.programs import program_file

ROOT = Path(__file__).resolve().parents[1]


def rows_by_key() -> dict[str, tuple]:
    return {key.strip("`"): row for row in doc.rows() for key in [row[0]]}


def test_the_model_reference_in_timing_md_is_current():
    text = (ROOT / "docs" / "timing.md").read_text()
    assert doc.BEGIN in text and doc.END in text
    assert doc.replaced(text, doc.section()) == text, \
        "docs/timing.md's model reference is stale: run `python -m simt_sim.calibrate.probes.doc --write`"
    assert len(text.splitlines()) <= 800, "docs/timing.md grew past the model reference's 800 lines"


def test_each_row_reads_the_schema_the_config_and_the_probes():
    rows = rows_by_key()
    # the functional run's keys and the file's own are not timing keys
    for launch_key in [*LAUNCH_KEYS.values(), "name", "warp_size", "base"]:
        assert launch_key not in rows
    assert "sass.barrier_latency" in rows and "memory.l2.latency" in rows
    value, meaning, pinned, recording = rows["sass.barrier_latency"][1:]
    assert value == "`14`" and meaning.startswith("over scheduler.barrier_latency for SASS runs")
    assert pinned == "probe tile_loop" and recording == "references/h200/tile_loop.json"
    # per-unit keys are one row, the value and the pin named per unit
    value, _, pinned, recording = rows["units.UNIT.lanes"][1:]
    assert "fp32 `32`" in value and "sfu `4`" in value and "probe xu_rate (sfu)" in pinned
    # a table key pinned entry by entry: the entry named
    assert "probe hmma_rate (HMMA)" in rows["sass.interval_overrides"][3]
    # sass_fit's program probes with the t-* program's recording
    _, _, pinned, recording = rows["sass.fetch.l1.line_cycles"][1:]
    assert pinned == "fetch_4096_warm (sass_fit)" and recording == "programs/probes/t-icache-4096/reference/h100.json"
    # a key no probe pins says so
    assert rows["sm.sub_partitions"][3:] == ("—", "—")


def test_every_pin_is_a_declared_key_and_every_recording_exists():
    for tool, (keys, recordings) in doc.TOOLS.items():
        assert (ROOT / "tools" / f"{tool.split(' ')[0]}.py").exists(), tool
        for key in keys:
            key_of(key)                                     # KeyError: not declared
        for rec in recordings:
            assert program_file(rec).exists(), (tool, rec)
    timing = set(doc.timing_keys())
    for pinned, entries in doc.pinned_by().items():
        assert any(pinned == k or pinned.startswith(k + ".") for k in timing), pinned
        for _, _, recordings in entries:
            for rec in recordings:
                assert (ROOT / rec).exists(), (pinned, rec)
    # every key a registered probe pins shows in its row
    text = doc.section()
    for probe in all_probes():
        if probe.keys:
            assert f"probe {probe.name}" in text, probe.name


def test_simt_sim_probe_doc_prints_the_section():
    out = subprocess.run([sys.executable, "-m", "simt_sim", "probe", "--doc"], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout == doc.section()
