"""GPU configurations: configs/*.yaml, validated on load, turned into launch settings.

The schema below is the one list of keys a config may have; an unknown key, a wrong type or an
impossible value is reported with file:line:column.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path

import yaml

from simt_sim.engine.simt_stack import POLICY_NAMES
from simt_sim.errors import InputError
from simt_sim.launch import LaunchConfig
from simt_sim.yamlschema import Field, between, load_yaml_nodes, one_of, positive, validate

CONFIG_DIR = Path(__file__).resolve().parents[1] / "configs"

SCHEMA = {
    "name": Field(str, required=True, doc="short name, as used by --config"),
    "description": Field(str, doc="one line: what machine this models"),
    "warp_size": Field(int, between(1, 64), required=True, doc="threads per warp"),
    "num_sms": Field(int, positive, doc="streaming multiprocessors"),
    "sm": {
        "max_resident_blocks": Field(int, positive, doc="blocks resident at once per SM"),
    },
    "simt": {
        "stack_depth": Field(int, positive, doc="SIMT stack entries per warp; deeper nesting faults"),
        "divergence_policy": Field(str, one_of(*POLICY_NAMES),
                                   doc="which side of a divergent branch runs first"),
    },
    "limits": {
        "max_warp_instructions": Field(int, positive, doc="stop with an error after this many"),
    },
}


@dataclass
class GPUConfig:
    name: str
    path: str
    data: dict

    def get(self, dotted: str, default=None):
        node = self.data
        for part in dotted.split("."):
            if not isinstance(node, dict) or part not in node:
                return default
            node = node[part]
        return node

    def launch_config(self) -> LaunchConfig:
        return LaunchConfig(
            warp_size=self.get("warp_size", 32),
            stack_depth=self.get("simt.stack_depth", 32),
            policy=self.get("simt.divergence_policy", "fewer-first"),
            max_warp_insts=self.get("limits.max_warp_instructions", 50_000_000),
            max_resident_blocks=self.get("sm.max_resident_blocks", 32),
            num_sms=self.get("num_sms", 1))


def config_path(name_or_path: str) -> Path:
    p = Path(name_or_path)
    if p.suffix in (".yaml", ".yml") or p.exists():
        return p
    return CONFIG_DIR / f"{name_or_path}.yaml"


def list_configs() -> list[Path]:
    return sorted(CONFIG_DIR.glob("*.yaml"))


def load_config(name_or_path: str = "h100", overrides: list[str] | None = None) -> GPUConfig:
    path = config_path(name_or_path)
    if not path.exists():
        names = ", ".join(p.stem for p in list_configs())
        raise InputError(f"no config {name_or_path!r} (available: {names})")
    data, root = load_yaml_nodes(str(path))
    validate(data, SCHEMA, str(path), root)
    data = copy.deepcopy(data)
    for item in overrides or []:
        apply_override(data, item)
    if overrides:
        text = yaml.safe_dump(data, sort_keys=False)
        odata, oroot = load_yaml_nodes(f"{path} (with --set)", text)
        validate(odata, SCHEMA, f"{path} (with --set {' '.join(overrides)})", oroot)
    return GPUConfig(data.get("name", path.stem), str(path), data)


def apply_override(data: dict, item: str) -> None:
    """`--set simt.stack_depth=4`: the value is read as YAML (numbers, strings, booleans)."""
    if "=" not in item:
        raise InputError(f"--set expects key=value, found {item!r}")
    key, _, raw = item.partition("=")
    parts = key.strip().split(".")
    node = data
    for part in parts[:-1]:
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            raise InputError(f"--set {key}: {part} is not a section")
    try:
        node[parts[-1]] = yaml.safe_load(raw)
    except yaml.YAMLError:
        raise InputError(f"--set {key}: cannot read value {raw!r}") from None
