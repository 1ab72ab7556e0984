"""What a sweep runs: programs x configs x schedulers x `--set` axes x seeds, as a list of
independent RunSpecs in a fixed order (the table's order).

An axis is one `--set KEYS=VALUES`: values separated by commas; several keys separated by
commas take each value together (`--set warp_size,units.fp32.lanes=8,16,32` is three runs, not
nine).  Several `--set` options cross each other.
"""
from __future__ import annotations

import glob
import itertools
from dataclasses import dataclass, field
from pathlib import Path

from simt_sim.errors import InputError
from simt_sim.frontend.manifest import load_manifest
from simt_sim.machine.config import load_config
from simt_sim.machine.layout import SCHEDULER_NAMES
from simt_sim.programs import program_dir

GLOB_CHARS = "*?["


@dataclass(frozen=True)
class Axis:
    keys: tuple[str, ...]
    values: tuple[str, ...]


@dataclass(frozen=True)
class RunSpec:
    """One simulation: a program directory with its config, scheduling policy, config overrides
    (key, value) pairs, input seed offset and launch dimensions ("" = the manifest's)."""
    program: str                 # the program's name (its directory's name): the table's column
    path: str                    # the program directory
    config: str
    scheduler: str
    sets: tuple[tuple[str, str], ...] = ()
    seed: int = 0
    grid: str = ""
    block: str = ""

    @property
    def set_text(self) -> str:
        return "; ".join(f"{k}={v}" for k, v in self.sets)

    @property
    def key(self) -> tuple:
        """What identifies a run in the table (a rerun skips runs whose key is there)."""
        return (self.program, self.config, self.scheduler, self.set_text, self.seed, self.grid, self.block)

    def columns(self) -> dict:
        row = {"program": self.program, "config": self.config, "scheduler": self.scheduler,
               "set": self.set_text, "seed": self.seed, "grid": self.grid, "block": self.block}
        row.update({f"set.{k}": v for k, v in self.sets})
        return row


@dataclass
class Plan:
    runs: list[RunSpec]
    set_keys: list[str] = field(default_factory=list)      # in axis order, for the set.* columns


def split_list(text: str) -> list[str]:
    """'a,b,[1,2]' -> ['a', 'b', '[1,2]']: commas inside brackets or braces stay (YAML values)."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in "[{"
        depth -= ch in "]}"
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    return parts


def parse_axis(item: str) -> Axis:
    """'KEY[,KEY...]=V1,V2,...' -> Axis; refuses an empty key or value and scheduler.policy (use
    --scheduler: the scheduler is its own column)."""
    keys_text, eq, values_text = item.partition("=")
    keys = tuple(k.strip() for k in keys_text.split(","))
    values = tuple(split_list(values_text))
    if not eq or not all(keys) or not all(values):
        raise InputError(f"--set expects KEY=V1,V2,... or KEY1,KEY2=V1,V2,..., found {item!r}")
    if "scheduler.policy" in keys:
        raise InputError("--set scheduler.policy: give the policies with --scheduler (its own column)")
    if len(set(keys)) != len(keys):
        raise InputError(f"--set {keys_text}: a key appears twice")
    return Axis(keys, values)


def parse_axes(items: list[str]) -> list[Axis]:
    axes = [parse_axis(item) for item in items]
    seen: set[str] = set()
    for axis in axes:
        twice = seen.intersection(axis.keys)
        if twice:
            raise InputError(f"--set {sorted(twice)[0]} is given in two --set options")
        seen.update(axis.keys)
    return axes


def parse_names(items: list[str] | None, what: str) -> list[str]:
    """Repeated and/or comma-separated option values, in order, each once."""
    names = [n for item in items or [] for n in split_list(item)]
    if any(not n for n in names):
        raise InputError(f"--{what}: empty name in {items}")
    return list(dict.fromkeys(names))


def parse_schedulers(items: list[str] | None) -> list[str]:
    names = parse_names(items, "scheduler")
    bad = [n for n in names if n not in SCHEDULER_NAMES]
    if bad:
        raise InputError(f"--scheduler {bad[0]}: expected one of {', '.join(SCHEDULER_NAMES)}")
    return names


def parse_seeds(items: list[str] | None) -> list[int]:
    texts = parse_names(items, "seed") or ["0"]
    try:
        seeds = [int(t) for t in texts]
    except ValueError:
        raise InputError(f"--seed expects integers, found {', '.join(texts)}") from None
    if any(s < 0 for s in seeds):
        raise InputError("--seed expects offsets >= 0 (0 = the manifest's own inputs)")
    return seeds


def resolve_programs(items: list[str], root: Path) -> list[Path]:
    """Program directories from paths, manifest files, globs (`programs/workloads/w-*`) or bare names
    (looked up in ./programs, then in the repository's programs/), in order, each once."""
    found: list[Path] = []
    for item in items:
        found.extend(resolve_program(item, root))
    return list(dict.fromkeys(found))


def resolve_program(item: str, root: Path) -> list[Path]:
    if any(c in item for c in GLOB_CHARS):
        dirs = [Path(p) for p in sorted(glob.glob(item)) if (Path(p) / "manifest.yaml").is_file()]
        if not dirs:
            raise InputError(f"sweep: no program directory (with a manifest.yaml) matches {item!r}")
        return [d.resolve() for d in dirs]
    path = Path(item)
    if path.suffix in (".yaml", ".yml") and path.is_file():
        return [path.resolve().parent]
    for candidate in (path, Path("programs") / item, program_dir(item, root)):
        if (candidate / "manifest.yaml").is_file():
            return [candidate.resolve()]
    raise InputError(f"sweep: no program {item!r} (a directory with a manifest.yaml, a manifest, a glob "
                     f"such as 'programs/workloads/w-*', or a name under programs/)")


def default_policy(path: Path, config: str, cache: dict) -> str:
    """The scheduling policy a run uses when --scheduler is not given: the config's, after the
    manifest's own `set`."""
    key = (str(path), config)
    if key not in cache:
        m = load_manifest(str(path))
        cache[key] = str(load_config(config, m.overrides).get("scheduler.policy"))
    return cache[key]


def make_plan(programs: list[str], root: Path, configs=None, schedulers=None, sets=None, seeds=None,
              grid: str = "", block: str = "") -> Plan:
    """Every combination, in the order: program, config, scheduler, each --set axis (first axis
    outermost), seed.  Programs, configs and schedulers are checked here (bad input: InputError);
    a config override that fails is a failed run."""
    dirs = resolve_programs(programs, root)
    config_names = parse_names(configs, "config")
    policies = parse_schedulers(schedulers)
    axes = parse_axes(sets or [])
    seed_list = parse_seeds(seeds)
    cache: dict = {}
    runs = []
    for path in dirs:
        manifest = load_manifest(str(path))
        for config in config_names or [manifest.config]:
            load_config(config)                               # an unknown config name is bad input
            for policy in policies or [default_policy(path, config, cache)]:
                for combo in itertools.product(*(axis.values for axis in axes)):
                    pairs = tuple((k, v) for axis, v in zip(axes, combo) for k in axis.keys)
                    for seed in seed_list:
                        runs.append(RunSpec(path.name, str(path), config, policy, pairs, seed, grid, block))
    return Plan(runs, [k for axis in axes for k in axis.keys])
