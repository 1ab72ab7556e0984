"""GPU configs (simt_sim/machine/config.py, configs/*.yaml): every key declared once (type, bounds,
default, doc), configs that inherit from a base config, `simt-sim configs --show`, and the h200
config against the recordings it cites (issue 63 point 4)."""
import json
from pathlib import Path

import pytest

from conftest import USER_WALL_SECONDS
from simt_sim.errors import InputError
from simt_sim.machine import config as C

ROOT = Path(__file__).resolve().parents[1]
BEFORE = json.loads((ROOT / "tests" / "data" / "configs" / "effective-before-issue63.json").read_text())


def plain(data):
    """JSON's view of a config (as it was recorded): ints stay ints, floats floats."""
    return json.loads(json.dumps(data))


@pytest.fixture
def user_defaults(monkeypatch):
    """The defaults as a user has them (conftest turns the wall-clock budget off for the tests)."""
    monkeypatch.setitem(C.DEFAULTS["limits"], "wall_seconds", USER_WALL_SECONDS)


def test_defaults_come_from_the_declarations_and_equal_the_recorded_ones():
    assert plain(C.defaults_of(C.SCHEMA)) == BEFORE["defaults"]
    # and every key with a default is a Key of the schema, nothing declared twice
    def leaves(schema, prefix=()):
        for k, v in schema.items():
            yield from leaves(v, prefix + (k,)) if isinstance(v, dict) else [(prefix + (k,), v)]
    keys = dict(leaves(C.SCHEMA))
    assert all(isinstance(v, C.Key) for v in keys.values())
    assert ("units", "fp32", "lanes") in keys and keys[("units", "fp32", "lanes")].default == 32
    assert keys[("sass", "units", "fp32", "lanes")].default is C.NO_DEFAULT       # sass.units lay over units


@pytest.mark.parametrize("name", sorted(BEFORE["configs"]))
def test_every_shipped_config_has_its_recorded_values(name, user_defaults):
    """Each configs/*.yaml, every key, and its SASS view, as recorded at c3196f0 before the schema
    took the defaults in (h100 included)."""
    cfg = C.load_config(name)
    assert plain(cfg.data) == BEFORE["configs"][name]["data"]
    assert plain(cfg.for_sass().data) == BEFORE["configs"][name]["for_sass"]


def test_launch_settings_keep_their_defaults(user_defaults):
    assert plain(C.LaunchConfig().gpu_config().data) == BEFORE["launch"]


def test_the_h100_config_is_identical_key_by_key(user_defaults):
    """The effective h100 config, leaf by leaf (a failure names the key)."""
    def flat(d, prefix=""):
        for k, v in d.items():
            if isinstance(v, dict) and v and k not in ("latency_overrides", "interval_overrides", "sm_unit_cycles",
                                                        "write_port_latency"):
                yield from flat(v, f"{prefix}{k}.")
            else:
                yield f"{prefix}{k}", v
    now, before = dict(flat(plain(C.load_config("h100").data))), dict(flat(BEFORE["configs"]["h100"]["data"]))
    assert sorted(now) == sorted(before)
    for key, value in before.items():
        assert now[key] == value and type(now[key]) is type(value), key


def h100_line(key: str) -> str:
    """"h100.yaml:N", the line of configs/h100.yaml that states top-level `key`."""
    lines = (ROOT / "configs" / "h100.yaml").read_text().splitlines()
    return f"h100.yaml:{next(i for i, line in enumerate(lines, 1) if line.startswith(key + ':'))}"


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_a_config_inherits_from_its_base_and_overrides_keys(tmp_path, user_defaults):
    f = write(tmp_path / "mine.yaml", "name: mine\nbase: h100\nclock_mhz: 1500\nmemory:\n  l2: {latency: 99}\n")
    mine, h100 = C.load_config(str(f)), C.load_config("h100")
    assert mine.get("clock_mhz") == 1500 and mine.get("memory.l2.latency") == 99
    assert mine.get("memory.l2.latency_ns") == h100.get("memory.l2.latency_ns")      # the rest of the section: h100's
    assert mine.get("description") is None and mine.get("sources") is None            # identification not inherited
    expected = C.overlay(C.SCHEMA, h100.data, {"clock_mhz": 1500, "memory": {"l2": {"latency": 99}}})
    for key in ("name", "description", "sources"):
        expected.pop(key)
    assert {k: v for k, v in mine.data.items() if k not in ("name", "base")} == expected
    assert mine.origins["clock_mhz"] == "mine.yaml:3" and mine.origins["memory.l2.latency"] == "mine.yaml:5"
    assert mine.origins["num_sms"] == f"base {h100_line('num_sms')}"
    assert "simt.memcheck" not in mine.origins                                       # the default


def test_bases_chain_and_a_table_replaces_the_bases(tmp_path):
    write(tmp_path / "a.yaml", "name: a\nbase: h100\nnum_sms: 8\nsass:\n  latency_overrides: {S2R: 40}\n")
    write(tmp_path / "b.yaml", "name: b\nbase: a.yaml\nsm: {max_warps: 32}\n")
    b = C.load_config(str(tmp_path / "b.yaml"))
    assert (b.get("num_sms"), b.get("sm.max_warps"), b.get("sm.sub_partitions")) == (8, 32, 4)
    assert b.get("sass.latency_overrides") == {"S2R": 40}        # a table is one value: a's, not merged with h100's
    assert b.origins["num_sms"] == "base a.yaml:3" and b.origins["clock_mhz"] == f"base {h100_line('clock_mhz')}"


@pytest.mark.parametrize("files, message, where", [
    ({"a.yaml": "name: a\nbase: b.yaml\n", "b.yaml": "name: b\nbase: a.yaml\n"},
     "base 'a.yaml' closes a cycle: a.yaml -> b.yaml -> a.yaml", "b.yaml:2:7"),
    ({"a.yaml": "name: a\nwarp_size: 32\nbase: a.yaml\n"}, "closes a cycle: a.yaml -> a.yaml", "a.yaml:3:7"),
    ({"a.yaml": "name: a\nbase: h300\n"}, "base 'h300': no such config", "a.yaml:2:7"),
    ({"a.yaml": "name: a\nbase: [h100]\n"}, "base: expected the name of a config", "a.yaml:2:7"),
    ({"a.yaml": "name: a\nbase: h100\nsm: {max_warps: 0}\n"}, "sm.max_warps must be between 1", "a.yaml:3:17"),
    ({"a.yaml": "name: a\nbase: h100\nclock: 3\n"}, "unknown key 'clock'", "a.yaml:3:1"),
    ({"a.yaml": "name: a\nnum_sms: 2\n"}, "missing required key 'warp_size'", "a.yaml:1:1"),
])
def test_a_bad_base_is_an_error_at_its_place(tmp_path, files, message, where):
    for name, text in files.items():
        write(tmp_path / name, text)
    with pytest.raises(InputError) as e:
        C.load_config(str(tmp_path / "a.yaml"))
    assert message in str(e.value) and f"{tmp_path}/{where}" in str(e.value), str(e.value)


def test_configs_show_prints_the_effective_config_and_where_each_value_comes_from(tmp_path, capsys, user_defaults):
    import yaml
    from simt_sim.cli.main import main
    f = write(tmp_path / "mine.yaml", "name: mine\nbase: h100\nclock_mhz: 1500\n")
    assert main(["configs", "--show", str(f)]) == 0
    out = capsys.readouterr().out
    lines = {line.split(":")[0].strip(): line for line in out.splitlines()}
    assert lines["clock_mhz"].endswith("# mine.yaml:3") and lines["num_sms"].endswith(f"# base {h100_line('num_sms')}")
    assert lines["memcheck"].endswith("# default") and lines["base"].endswith("# mine.yaml:2")
    assert yaml.safe_load(out) == C.load_config(str(f)).data            # the listing is the config itself
    assert C.load_config(str(f), ["num_sms=4"]).origins["num_sms"] == "--set"



def leaf_values(data: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in data.items():
        if isinstance(v, dict) and v and isinstance(C.SCHEMA_SECTIONS.get(f"{prefix}{k}"), dict):
            out.update(leaf_values(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


# the keys configs/h200.yaml sets, each derived here from the H200 recording its comment names
H200_KEYS = {"host.profiler_clock_mhz", "host.stream_start_delay", "host.stream_join"}


def test_h200_differs_from_h100_only_where_an_h200_was_recorded(user_defaults):
    h100, h200 = C.load_config("h100"), C.load_config("h200")
    a, b = leaf_values(h100.data), leaf_values(h200.data)
    assert set(a) | {"base"} == set(b)
    differ = {k for k in a if a[k] != b[k]} - {"name", "description", "sources"}
    assert differ == H200_KEYS
    assert {k for k, o in h200.origins.items() if o.startswith("h200.yaml")} == \
        H200_KEYS | {"name", "base", "description", "sources"}
    assert h200.for_sass().get("memory.l2.sectors_per_cycle") == h100.for_sass().get("memory.l2.sectors_per_cycle")


def test_h200_profiler_clock_is_its_recording():
    """Nsight Compute's clock on the H200: the median of gpc__cycles_elapsed.avg.per_second over the
    30 launches of tools/kernel_ends.py's recording."""
    rec = json.loads((ROOT / "programs/probes/launch-empty/reference/h100-kernel-ends.json").read_text())
    assert rec["device"] == "NVIDIA H200"
    mhz = sorted(case["mhz"] for cond in ("flushed", "warm") for case in rec[cond].values())
    assert len(mhz) == 30
    assert C.load_config("h200").get("host.profiler_clock_mhz") == (mhz[14] + mhz[15]) / 2 == 1474.25
    assert "h100-kernel-ends.json" in (ROOT / "configs" / "h200.yaml").read_text()


def test_h200_stream_keys_are_their_recording():
    """tools/stream_events.py --fit's two values from the H200's recording, at clock_mhz: how much
    later a second stream's first kernel starts (median over the cases) and what two streams ending
    together add to the event time (median over the paired cases)."""
    import statistics
    rec = json.loads((ROOT / "programs/workloads/w-fusion-streams/reference/h200-stream-events.json").read_text())
    assert rec["device"] == "NVIDIA H200"
    cases = rec["cases"]
    one = ("1 stream, 1 kernel", "1 stream, spin", "1 stream, 528 blocks")
    two = ("2 streams, 1 kernel each", "2 streams, spin each", "2 streams, 528 blocks each")
    start = {n: min(a for a, _ in c["launches_us"]) for n, c in cases.items()}
    tail = {n: c["event_us"] - max(b for _, b in c["launches_us"]) for n, c in cases.items()}
    delay_us = statistics.median(start[n] for n in cases if n.startswith("2 streams")) \
        - statistics.median(start[n] for n in one)
    join_us = statistics.median(tail[b] - tail[a] for a, b in zip(one, two))
    cfg = C.load_config("h200")
    mhz = cfg.get("clock_mhz")
    assert cfg.get("host.stream_start_delay") == round(delay_us * mhz) == 2566
    assert cfg.get("host.stream_join") == round(join_us * mhz) == 2503
    assert "h200-stream-events.json" in (ROOT / "configs" / "h200.yaml").read_text()


def test_the_key_reference_is_current_and_reads_the_declarations():
    from simt_sim.machine.config import config_reference
    text = config_reference()
    assert (ROOT / "docs" / "config-keys.md").read_text() == text, \
        "docs/config-keys.md is stale: run `simt-sim configs --keys > docs/config-keys.md`"
    rows = {line.split(" | ")[0][3:-1]: line.split(" | ") for line in text.splitlines() if line.startswith("| `")}
    assert rows["units.fp64.lanes"][1:4] == ["float", "> 0 to 64 (at least 0.001)", "`16`"]
    assert rows["sm.max_warps"][2:4] == ["1 to 4,096", "`64`"]
    assert rows["simt.divergence_policy"][2] == "one of fewer-first, fallthrough-first, taken-first"
    assert rows["warp_size"][3] == "required" and rows["sass.units.fp32.latency"][3] == "(none)"


def test_set_cannot_change_the_base():
    """A base is laid under a file when it loads; --set base=... would change nothing, so it is refused."""
    with pytest.raises(InputError, match="--set base: a base config is read when a config file loads"):
        C.load_config("h200", ["base=a100"])


@pytest.mark.parametrize("settings, message", [
    ({"warp_size": 65}, "warp_size must be between 1 and 64 (found 65)"),
    ({"policy": "random"}, "simt.divergence_policy must be one of fewer-first, fallthrough-first, taken-first"),
    ({"stack_depth": 0}, "simt.stack_depth must be between 1 and 1024 (found 0)"),
    ({"memcheck": "off"}, "simt.memcheck must be one of fault, report"),
    ({"history_rows": -1}, "limits.history_rows must be between 0 and"),
    ({"warp_size": 8.5}, "warp_size expected int, found float 8.5"),
])
def test_launch_settings_are_checked_by_the_key_declarations(settings, message):
    """LaunchConfig (the API's functional runs without a GPU config) has no bounds of its own."""
    import numpy as np
    C.LaunchConfig(warp_size=np.int64(8), wall_seconds=None).validate()
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        C.LaunchConfig(**settings).validate()
