"""The public API (simt_sim/api.py): every Python example of docs/api.md and README.md runs, and a
Result's fields agree with the run drivers and with what the command line writes for the same run."""
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import simt_sim
from simt_sim.cli.main import main
from simt_sim.errors import InputError
from simt_sim.frontend.assembler import load_program as load_ptx
from simt_sim.machine.config import load_config as load_config_deep
from simt_sim.run.timed import KernelLaunch, simulate as simulate_deep

ROOT = Path(__file__).resolve().parents[1]


def python_blocks(markdown: str) -> list[tuple[str, str]]:
    """("FILE:LINE", code) of every ```python block."""
    text = (ROOT / markdown).read_text()
    return [(f"{markdown}:{text[:m.start()].count(chr(10)) + 2}", m.group(1))
            for m in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M)]


DOC_BLOCKS = python_blocks("docs/api.md") + python_blocks("README.md")


def test_docs_have_examples():
    assert len(DOC_BLOCKS) >= 8


@pytest.mark.parametrize("where,code", DOC_BLOCKS, ids=[where for where, _ in DOC_BLOCKS])
def test_doc_example_runs(where, code, tmp_path, monkeypatch):
    # run from a scratch directory that sees the repository's programs/ and tests/ (the examples'
    # paths are relative to the repository root), so files the examples write land there
    for name in ("programs", "tests"):
        (tmp_path / name).symlink_to(ROOT / name)
    monkeypatch.chdir(tmp_path)
    exec(compile(code, where, "exec"), {"__name__": "doc_example"})


def test_import_is_cheap():
    code = "import sys, simt_sim; print('numba' in sys.modules, 'simt_sim.api' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert out.split() == ["False", "False"]
    assert set(simt_sim.__all__) <= set(dir(simt_sim))
    assert all(getattr(simt_sim, name) is not None for name in simt_sim.__all__)


def test_run_driver_package_stays_importable():
    # the functional run is run_functional, not run: a function simt_sim.run would shadow the
    # simt_sim/run package and break `import simt_sim.run.timed as ...`
    import simt_sim.run.timed as timed_driver
    assert timed_driver.simulate is not simt_sim.simulate


def test_functional_outputs_and_stats():
    a, b = np.arange(100, dtype=np.int32), np.arange(100, dtype=np.int32)[::-1].copy()
    res = simt_sim.run_functional(simt_sim.load_program("tests/cuda/vec_add_int.ptx"), 2, 64, ["a", "b", "c", 100],
                                  {"a": a, "b": b, "c": np.zeros(100, np.int32)})
    assert res.outputs["c"].tolist() == [99] * 100
    assert res.cycles is None and not res.timed
    assert len(res.metrics) == 1 and res.metrics == res.metrics_table()
    assert res.metrics[0]["warp_instructions"] > 0 and 0 < res.metrics[0]["cfe"] <= 1
    assert len(res.history) == 0                       # not recorded unless asked


def test_program_directory_outputs_functional_and_timed():
    want = [10] * 4 + [20] * 4                         # the manifest's expect
    assert simt_sim.run_program("programs/examples/article-ex3-mask", functional=True).outputs["out"].tolist() == want
    assert simt_sim.run_program("programs/examples/article-ex3-mask").outputs["out"].tolist() == want


def test_cycles_and_metrics_equal_the_driver():
    program = load_ptx("tests/cuda/saxpy.ptx")
    buffers = {"x": np.arange(512, dtype=np.float32), "y": np.ones(512, np.float32)}
    cfg = load_config_deep("h100", ["num_sms=2"])
    registers = simt_sim.allocated_registers(program).registers      # what simulate() takes without a count
    deep = simulate_deep([KernelLaunch(program, 2, 256, [2.0, "x", "y", 512], registers=registers)], buffers, cfg)
    res = simt_sim.simulate(simt_sim.Launch(program, 2, 256, [2.0, "x", "y", 512]), buffers,
                            simt_sim.load_config("h100", {"num_sms": 2}))
    assert res.timed and res.cycles == deep.cycles > 0
    assert res.metrics == deep.kernels
    assert np.array_equal(res.outputs["y"], 2 * buffers["x"] + 1)
    assert buffers["y"].tolist() == [1.0] * 512        # inputs are copied in, not changed


def test_metrics_table_rows_are_flat():
    res = simt_sim.run_program("programs/examples/two-streams")
    rows = res.metrics_table()
    assert [r["kernel"] for r in rows] == ["saxpy", "ffma_loop"]
    for row, m in zip(rows, res.metrics):
        assert not any(isinstance(v, dict) for v in row.values())
        assert row["cycles"] == m["cycles"] and row["stream"] == m["stream"]
        assert row["unit_busy.fp32"] == m["unit_busy"]["fp32"]
        assert row["stall_cycles.long_scoreboard"] == m["stall_cycles"]["long_scoreboard"]
        assert row["occupancy.blocks_per_sm"] == m["occupancy"]["blocks_per_sm"]


def test_to_dataframe_with_and_without_pandas(monkeypatch):
    res = simt_sim.run_program("programs/examples/article-ex3-mask", functional=True)

    class FakePandas:
        @staticmethod
        def DataFrame(rows):
            return ("frame", rows)

    monkeypatch.setitem(sys.modules, "pandas", FakePandas)
    assert res.to_dataframe() == ("frame", res.metrics_table())
    monkeypatch.setitem(sys.modules, "pandas", None)          # import pandas now fails
    with pytest.raises(ImportError, match=r"needs pandas \(pip install pandas\)"):
        res.to_dataframe()


@pytest.mark.parametrize("cli_flags,functional", [([], False), (["--functional"], True)])
def test_to_json_is_the_cli_document(cli_flags, functional, tmp_path, capsys):
    cli_path, api_path = tmp_path / "cli.json", tmp_path / "api.json"
    assert main(["run", "programs/examples/article-ex3-mask", "--quiet", "--json", str(cli_path), *cli_flags]) == 0
    res = simt_sim.run_program("programs/examples/article-ex3-mask", functional=functional, history=True)
    doc = res.to_json(api_path)
    assert api_path.read_bytes() == cli_path.read_bytes()
    assert json.loads(cli_path.read_text()) == json.loads(json.dumps(doc, default=float))
    assert doc["history"]["0"]["mask"][3] == "11110000"


def test_masks_are_the_cli_text(capsys):
    assert main(["run", "programs/examples/figure2-ifelse", "--quiet", "--masks"]) == 0
    printed = capsys.readouterr().out
    res = simt_sim.run_program("programs/examples/figure2-ifelse", history=True)
    assert printed == res.masks() + "\n"
    assert res.masks(warp=1) == res.masks(warp=[1])
    assert "# warp 1: block (0,0,0) warp 1" in res.masks(warp=1) and "# warp 0" not in res.masks(warp=1)


def test_picture_and_trace_files(tmp_path):
    res = simt_sim.run_program("programs/examples/figure2-ifelse", trace=True)
    res.picture(tmp_path / "h.svg", cycles=(0, 50), warps=[0])
    assert (tmp_path / "h.svg").read_text().startswith("<svg")
    res.picture(tmp_path / "h.png")
    assert (tmp_path / "h.png").read_bytes()[:4] == b"\x89PNG"
    res.trace(tmp_path / "t.json")
    events = json.loads((tmp_path / "t.json").read_text())["traceEvents"]
    assert sum(e.get("cat") == "issue" for e in events) == len(res.raw.trace) > 0


def test_misuse_is_an_input_error(tmp_path):
    untraced = simt_sim.run_program("programs/examples/figure2-ifelse")
    with pytest.raises(InputError, match=r"picture\(\) needs a run recorded with trace=True"):
        untraced.picture(tmp_path / "x.svg")
    with pytest.raises(InputError, match=r"trace\(\) needs a run recorded with trace=True"):
        untraced.trace(tmp_path / "x.json")
    with pytest.raises(InputError, match=r"masks\(\) needs a run recorded with history=True"):
        untraced.masks()
    functional = simt_sim.run_program("programs/examples/figure2-ifelse", functional=True, history=True)
    with pytest.raises(InputError, match="needs the timing model"):
        functional.picture(tmp_path / "x.svg")
    with pytest.raises(InputError, match="no launch 1: the run had 1"):
        functional.masks(launch=1)
    with pytest.raises(InputError, match="more_launches need the timing model"):
        simt_sim.run_program("programs/examples/two-streams", functional=True)
    with pytest.raises(InputError, match="trace=True needs the timing model"):
        simt_sim.run_program("programs/examples/figure2-ifelse", functional=True, trace=True)
    with pytest.raises(InputError, match="expected a Program from simt_sim.load_program"):
        simt_sim.run_functional("tests/cuda/saxpy.ptx", 1, 32, [2.0, "x", "y", 32])
    with pytest.raises(InputError, match="expected a Program from simt_sim.load_program"):
        simt_sim.simulate(simt_sim.Launch("tests/cuda/saxpy.ptx", 1, 32, [2.0, "x", "y", 32]))
    with pytest.raises(InputError, match=r"simulate\(\) takes a Launch or a list of them, found a tuple"):
        simt_sim.simulate([("saxpy", 1, 32)])
    with pytest.raises(InputError, match="expected a list of 'key=value' strings or a dict"):
        simt_sim.load_config("h100", "num_sms=2")
    assert not (tmp_path / "x.svg").exists() and not (tmp_path / "x.json").exists()


def test_load_config_overrides_list_dict_and_config_object():
    as_list = simt_sim.load_config("h100", ["num_sms=4", "simt.divergence_policy=taken-first",
                                            "units.fp32.latency=7"])
    as_dict = simt_sim.load_config("h100", {"num_sms": 4, "simt.divergence_policy": "taken-first",
                                            "units.fp32.latency": 7})
    assert as_list.data == as_dict.data and as_dict.get("num_sms") == 4
    assert simt_sim.load_config(ROOT / "configs/h100.yaml").data == simt_sim.load_config().data
    res = simt_sim.run_program("programs/examples/article-ex3-mask", config=as_dict, overrides={"num_sms": 1})
    assert res.config.get("num_sms") == 1 and res.config.get("units.fp32.latency") == 7


def test_load_program_from_directory_manifest_or_ptx():
    by_dir = simt_sim.load_program("programs/examples/two-streams")
    by_manifest = simt_sim.load_program("programs/examples/two-streams/manifest.yaml", "ffma_loop")
    assert by_dir.name == "saxpy" and by_manifest.name == "ffma_loop"
    assert by_dir.texts == simt_sim.load_program("programs/examples/two-streams/kernel.ptx", "saxpy").texts
