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
