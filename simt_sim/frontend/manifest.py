"""Program manifests (programs/PURPOSE/NAME/manifest.yaml) and buffer specifications.

A buffer spec is `DTYPE[SIZE]` optionally followed by `:INIT`, the same in a manifest and in
`--buffer name=SPEC` on the command line.  See docs/manifest.md.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace, field
from pathlib import Path

import numpy as np

from simt_sim.errors import InputError, SourceLoc
from simt_sim.frontend.yamlschema import Field, between, error_at, load_yaml_nodes, node_at, validate
from simt_sim.programs import program_dir
from simt_sim.frontend.dims import MAX_DYNAMIC_SHARED, MAX_REGS_PER_THREAD, MAX_STREAM, DimsError, check_dims

DTYPES = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
          "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
          "f32": np.float32, "f64": np.float64}
_SPEC_RE = re.compile(r"^\s*(?P<dtype>[a-z0-9]+)\s*\[\s*(?P<size>\d+)\s*\]\s*(?::\s*(?P<init>.*))?$")
_INIT_RE = re.compile(r"^(?P<name>[a-z_]+)\s*(?:\((?P<args>.*)\))?\s*$")

# The simulator holds a few copies of every buffer in host memory (inputs, global memory, results).
MAX_BUFFER_BYTES = 2**30

INIT_HELP = ("zeros | fill(V) | range | range(start,step) | values(v0,v1,...) | "
             "random(seed=S,low=L,high=H[,sorted=true]) | lane_id(width) | file(NAME.npy)")


@dataclass
class BufferSpec:
    name: str
    dtype: str
    size: int
    init: str = "zeros"
    base_dir: Path = Path(".")        # where file(NAME.npy) is looked up: the manifest's directory

    def make(self) -> np.ndarray:
        return make_buffer(self)


def parse_buffer_spec(name: str, text: str, base_dir: Path = Path(".")) -> BufferSpec:
    """`i32[128]:random(seed=1)` -> BufferSpec; raises ValueError with what was expected.
    base_dir: the directory file(NAME.npy) initialisers are relative to."""
    m = _SPEC_RE.match(str(text))
    if not m:
        raise ValueError(f"buffer {name!r}: expected DTYPE[SIZE] or DTYPE[SIZE]:INIT, found {text!r}")
    dtype = m.group("dtype")
    if dtype not in DTYPES:
        raise ValueError(f"buffer {name!r}: unknown dtype {dtype!r} (expected one of {', '.join(DTYPES)})")
    spec = BufferSpec(name, dtype, int(m.group("size")), (m.group("init") or "zeros").strip(), Path(base_dir))
    nbytes = spec.size * np.dtype(DTYPES[dtype]).itemsize
    if nbytes > MAX_BUFFER_BYTES:
        raise ValueError(f"buffer {name!r}: {spec.size} elements of {dtype} are {nbytes} bytes; "
                         f"a buffer holds at most {MAX_BUFFER_BYTES} bytes ({MAX_BUFFER_BYTES >> 30} GiB)")
    # validates the initialiser on a few elements (values() and file() on all: their length must
    # match), so that a large buffer is not allocated before the run's memory budget is checked
    make_buffer(spec if spec.init.startswith(("values", "file")) else replace(spec, size=min(spec.size, 16)))
    return spec


def _kwargs(args: str) -> tuple[list[str], dict[str, str]]:
    pos, kw = [], {}
    for part in filter(None, (a.strip() for a in args.split(","))):
        if "=" in part:
            k, _, v = part.partition("=")
            kw[k.strip()] = v.strip()
        else:
            pos.append(part)
    return pos, kw


def make_buffer(spec: BufferSpec) -> np.ndarray:
    dt = np.dtype(DTYPES[spec.dtype])
    m = _INIT_RE.match(spec.init)
    if not m:
        raise ValueError(f"buffer {spec.name!r}: bad initialiser {spec.init!r} (expected {INIT_HELP})")
    kind = m.group("name")
    pos, kw = _kwargs(m.group("args") or "")
    n = spec.size
    num = float if dt.kind == "f" else int
    try:
        if kind == "zeros":
            return np.zeros(n, dt)
        if kind == "fill":
            return np.full(n, num(pos[0]), dt)
        if kind == "range":
            start = num(pos[0]) if pos else num(kw.get("start", 0))
            step = num(pos[1]) if len(pos) > 1 else num(kw.get("step", 1))
            return (start + step * np.arange(n)).astype(dt)
        if kind == "values":
            vals = [num(v) for v in pos]
            if len(vals) != n:
                raise ValueError(f"values() gives {len(vals)} values for {n} elements")
            return np.array(vals, dtype=dt)
        if kind == "random":
            values = random_values(dt, n, pos, kw)
            # sorted=true: the same values in ascending order (seed 001 Figure 9: sorted loop counts)
            return np.sort(values, kind="stable") if flag(kw.get("sorted", "false"), "sorted") else values
        if kind == "lane_id":
            width = int(pos[0]) if pos else 32
            if width < 1:
                raise ValueError(f"lane_id width must be at least 1, found {width}")
            return (np.arange(n) % width).astype(dt)
        if kind == "file":
            return npy_values(spec, dt, pos, kw)
    except (ValueError, IndexError, OverflowError) as e:
        raise ValueError(f"buffer {spec.name!r}: bad initialiser {spec.init!r}: {e}") from None
    raise ValueError(f"buffer {spec.name!r}: unknown initialiser {kind!r} (expected {INIT_HELP})")


RANDOM_KEYS = {"seed", "low", "high", "sorted"}


def npy_values(spec: BufferSpec, dt: np.dtype, pos: list[str], kw: dict[str, str]) -> np.ndarray:
    """file(NAME.npy): a one-dimensional .npy array (path relative to the manifest) whose dtype and
    length are exactly the declared buffer's, e.g. seed 000's regrouped inputs and index arrays."""
    if len(pos) != 1 or kw:
        raise ValueError("file() takes one .npy path, e.g. file(inputs.npy)")
    path = spec.base_dir / pos[0]
    try:
        values = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise ValueError(f"no such file {str(path)!r}") from None
    except (OSError, ValueError, EOFError) as e:   # not a .npy file (empty: EOFError), or an object array
        raise ValueError(f"{str(path)!r} is not a numeric .npy array ({e})") from None
    if values.dtype != dt:
        raise ValueError(f"{pos[0]} holds {values.dtype}, the buffer is {spec.dtype} ({dt})")
    if values.shape != (spec.size,):
        raise ValueError(f"{pos[0]} has shape {values.shape}, the buffer is {spec.dtype}[{spec.size}]")
    return np.ascontiguousarray(values)


def with_seed_offset(spec: BufferSpec, offset: int) -> BufferSpec:
    """The spec with its random(seed=S, ...) initialiser drawn from seed S + offset (other
    initialisers unchanged): `simt-sim sweep --seed` repeats a program on fresh random inputs,
    and offset 0 is the manifest's own inputs."""
    m = _INIT_RE.match(spec.init)
    if offset == 0 or not m or m.group("name") != "random":
        return spec
    pos, kw = _kwargs(m.group("args") or "")
    seed = int(kw.pop("seed", pos.pop(0) if pos else 0))
    args = ",".join([f"seed={seed + offset}", *pos, *(f"{k}={v}" for k, v in kw.items())])
    return BufferSpec(spec.name, spec.dtype, spec.size, f"random({args})", spec.base_dir)


def random_values(dt: np.dtype, n: int, pos: list[str], kw: dict[str, str]) -> np.ndarray:
    """random(seed=S,low=L,high=H): integers uniform in [L, H] (inclusive), floats uniform in [L, H)."""
    unknown = sorted(set(kw) - RANDOM_KEYS)
    if unknown:
        raise ValueError(f"random() takes {', '.join(sorted(RANDOM_KEYS))}; found {unknown[0]!r}")
    rng = np.random.default_rng(int(kw.get("seed", pos[0] if pos else 0)))
    if dt.kind == "f":
        low, high = float(kw.get("low", 0.0)), float(kw.get("high", 1.0))
        return rng.uniform(low, high, n).astype(dt)
    info = np.iinfo(dt)
    low = int(kw.get("low", 0))
    high = int(kw.get("high", min(info.max, 100)))
    return rng.integers(low, high, n, endpoint=True, dtype=np.int64).astype(dt)


def flag(text: str, name: str) -> bool:
    """A yes/no initialiser argument: true/false or 1/0."""
    value = text.strip().lower()
    if value not in ("true", "false", "1", "0"):
        raise ValueError(f"{name} must be true or false, found {text!r}")
    return value in ("true", "1")


SCHEMA = {
    "description": Field(str, doc="what the program shows"),
    "kernel_file": Field(str, required=True, doc="PTX file, relative to the manifest"),
    "kernel": Field(str, doc="entry name (needed when the file has several)"),
    "config": Field(str, doc="GPU config name or path (default h100)"),
    "set": Field(list, doc="config overrides, as for --set"),
    # grid and block: N or [x, y, z]; CUDA's limits are checked by check_launch_dims
    "grid": Field((int, list), required=True, doc="blocks: N or [x, y, z]"),
    "block": Field((int, list), required=True, doc="threads per block: N or [x, y, z]"),
    "dynamic_shared": Field(int, between(0, MAX_DYNAMIC_SHARED), doc="bytes of extern .shared memory"),
    "registers": Field(int, between(1, MAX_REGS_PER_THREAD),
                       doc="32-bit registers per thread for occupancy (default: the PTX .reg declarations)"),
    "buffers": Field(dict, doc="name: DTYPE[SIZE]:INIT"),
    "args": Field(list, required=True, doc="one per kernel parameter: buffer name or number"),
    "expect": Field(dict, doc="name: [values] or 'oracle'"),
    "clock_outputs": Field(list, doc="buffers holding (start, end) clock pairs: compared with hardware as spans, "
                                     "not values"),
    "stream": Field(int, between(0, MAX_STREAM),
                    doc="stream of the main launch (default 0)"),
    "more_launches": Field(list, doc="further kernel launches after / beside the main one (timing runs)"),
    "isa": Field(str, doc="what runs: sass (the sm_90 SASS ptxas makes of the PTX; default when the kernel was "
                          "compiled from CUDA, i.e. has a .cu source beside it) or ptx (the PTX itself; default "
                          "for hand-written PTX)"),
    "sass_families": Field(list, doc="SASS opcode families (isa/sass.yaml names, e.g. IADD3) the program exists "
                                     "to check; tests/test_sass_diff_programs.py asserts ptxas emits each"),
}

# one entry of more_launches: same stream = after the previous launch, another stream = concurrently
LAUNCH_SCHEMA = {
    "kernel": Field(str, doc="entry name in kernel_file (or in this entry's kernel_file)"),
    "kernel_file": Field(str, doc="PTX file, relative to the manifest (default: the main one)"),
    "grid": SCHEMA["grid"],
    "block": SCHEMA["block"],
    "args": SCHEMA["args"],
    "stream": SCHEMA["stream"],
    "registers": SCHEMA["registers"],
    "dynamic_shared": SCHEMA["dynamic_shared"],
}


@dataclass
class Manifest:
    path: Path
    kernel_file: Path
    kernel: str | None
    config: str
    overrides: list[str]
    grid: list[int] | int
    block: list[int] | int
    buffers: list[BufferSpec]
    args: list
    expect: dict = field(default_factory=dict)
    description: str = ""
    dynamic_shared: int = 0
    registers: int | None = None
    stream: int = 0
    more_launches: list[dict] = field(default_factory=list)   # kernel_file resolved to a Path
    clock_outputs: list[str] = field(default_factory=list)
    isa: str = "ptx"                 # resolved on loading: the manifest's, else default_isa(kernel_file)
    sass_families: list[str] = field(default_factory=list)

    # Programs built from CUDA (tools/build_programs.py) keep kernel.cu, kernel.ptx and the mask-trace
    # variant kernel.trace.ptx together; a manifest may run another program's PTX (kernel_file:
    # ../w-regroup-tree-base/kernel.ptx), and then its source and trace variant are that program's.
    @property
    def concurrent_streams(self) -> bool:
        """Whether its launches use more than one stream (they may then run at the same time)."""
        return len({self.stream, *(entry.get("stream", 0) for entry in self.more_launches)}) > 1

    @property
    def cuda_source(self) -> Path:
        """The CUDA source the kernel file was compiled from (it may not exist)."""
        return self.kernel_file.with_suffix(".cu")

    @property
    def trace_kernel_file(self) -> Path:
        """The mask-trace variant of the kernel file, NAME.trace.ptx beside it (it may not exist)."""
        return self.kernel_file.with_name(self.kernel_file.stem + ".trace.ptx")


def default_isa(kernel_file) -> str:
    """What a kernel runs as when nobody says: nvcc-compiled kernels (a CUDA source beside the PTX,
    or the source itself) run as the sm_90 SASS ptxas makes of them, the way the H100 runs them;
    hand-written PTX (the explicit-mask ISA, the teaching programs) runs as PTX."""
    path = Path(kernel_file)
    return "sass" if path.suffix == ".cu" or path.with_suffix(".cu").is_file() else "ptx"


def manifest_path(target: str) -> Path:
    p = Path(target)
    if not p.exists() and not p.suffix and (len(p.parts) == 1 or p.parts[:-1] == ("programs",)):
        # a program's name alone ("v-vote"), or its path from before programs/ was sorted by
        # purpose ("programs/v-vote"): the project's program of that name, when there is one
        found = program_dir(p.name)
        if found.is_dir():
            p = found
    return p / "manifest.yaml" if p.is_dir() else p


def load_manifest(target: str) -> Manifest:
    path = manifest_path(target)
    data, root = load_yaml_nodes(str(path))
    validate(data, SCHEMA, str(path), root)
    check_launch_dims(data, str(path), root, ())
    buffers = []
    for name, spec in (data.get("buffers") or {}).items():
        try:
            buffers.append(parse_buffer_spec(str(name), spec, path.parent))
        except ValueError as e:
            raise error_at(str(path), root, ("buffers", name), str(e)) from None
    names = {b.name for b in buffers}
    check_args(data["args"], names, str(path), root, ())
    more = []
    for i, entry in enumerate(data.get("more_launches") or []):
        validate(entry, LAUNCH_SCHEMA, str(path), root, ("more_launches", i))
        check_launch_dims(entry, str(path), root, ("more_launches", i))
        check_args(entry["args"], names, str(path), root, ("more_launches", i))
        kfile = path.parent / entry.get("kernel_file", data["kernel_file"])
        if not kfile.is_file():         # "" or "." names the manifest's folder, not a kernel
            raise error_at(str(path), root, ("more_launches", i), f"kernel file {str(kfile)!r} not found")
        more.append(dict(entry, kernel_file=kfile))
    if data.get("isa", "ptx") not in ("ptx", "sass"):
        raise error_at(str(path), root, ("isa",), f"isa must be ptx or sass, found {data['isa']!r}")
    for i, name in enumerate(data.get("clock_outputs") or []):
        if not isinstance(name, str) or name not in names:
            raise error_at(str(path), root, ("clock_outputs", i), f"clock output {name!r} is not a buffer")
    check_sass_families(data.get("sass_families") or [], str(path), root)
    if more and any(v == "oracle" for v in (data.get("expect") or {}).values()):
        raise error_at(str(path), root, ("expect",), "'oracle' checks one launch; with more_launches "
                       "give the expected values")
    for name, want in (data.get("expect") or {}).items():
        if name not in names:
            raise error_at(str(path), root, ("expect", name), f"expected output {name!r} is not a buffer")
        if not (want == "oracle" or isinstance(want, list)):
            raise error_at(str(path), root, ("expect", name), "expected a list of values or 'oracle'")
        if isinstance(want, list):
            check_expected_values(want, next(b for b in buffers if b.name == name), str(path), root)
    kernel_file = path.parent / data["kernel_file"]
    if not kernel_file.is_file():       # "" or "." names the manifest's folder, not a kernel
        node = node_at(root, "kernel_file")
        raise InputError(f"kernel file {data['kernel_file']!r} not found",
                         SourceLoc(str(path), node.start_mark.line + 1, node.start_mark.column + 1))
    return Manifest(path, kernel_file, data.get("kernel"), data.get("config", "h100"),
                    [str(s) for s in data.get("set", [])], data["grid"], data["block"], buffers,
                    data["args"], data.get("expect") or {}, data.get("description", ""),
                    data.get("dynamic_shared", 0), data.get("registers"), data.get("stream", 0), more,
                    [str(c) for c in data.get("clock_outputs") or []], data.get("isa") or default_isa(kernel_file),
                    list(data.get("sass_families") or []))


SASS_FAMILY_RE = re.compile(r"[A-Z][A-Z0-9_]*")


def check_sass_families(names: list, path: str, root) -> None:
    """`sass_families`: opcode family names as nvdisasm spells them (upper case, no modifiers)."""
    for i, name in enumerate(names):
        if not isinstance(name, str) or not SASS_FAMILY_RE.fullmatch(name):
            raise error_at(path, root, ("sass_families", i),
                           f"sass_families: expected an opcode family such as IADD3 (upper case, no "
                           f"modifiers), found {name!r}")


def check_launch_dims(launch: dict, path: str, root, prefix: tuple) -> None:
    """CUDA's grid and block limits, reported at the offending value (the list element if any)."""
    for kind in ("grid", "block"):
        value = launch[kind]
        try:
            check_dims(value, kind)
        except DimsError as e:
            element = (e.axis,) if isinstance(value, list) and e.axis is not None else ()
            raise error_at(path, root, prefix + (kind,) + element, e.message) from None


def check_expected_values(want: list, spec: BufferSpec, path: str, root) -> None:
    """An `expect` list: one value per element of the buffer, each one its dtype can hold."""
    where = ("expect", spec.name)
    if len(want) != spec.size:
        raise error_at(path, root, where, f"expected output {spec.name!r} is {spec.dtype}[{spec.size}]; "
                                          f"found {len(want)} values")
    dtype = np.dtype(DTYPES[spec.dtype])
    kinds = (int, float) if dtype.kind == "f" else int
    for i, value in enumerate(want):
        if not _holds(dtype, value, kinds):
            raise error_at(path, root, where + (i,), f"{value!r} is not a {spec.dtype} value")


def _holds(dtype: np.dtype, value, kinds) -> bool:
    if isinstance(value, bool) or not isinstance(value, kinds):
        return False
    try:
        with np.errstate(over="ignore"):          # 1e300 as f32 is inf, as the kernel would store it
            np.array(value, dtype=dtype)
    except OverflowError:
        return False
    return True


def check_args(args: list, names: set[str], path: str, root, prefix: tuple) -> None:
    for i, arg in enumerate(args):
        if isinstance(arg, str) and arg not in names:
            raise error_at(path, root, prefix + ("args", i), f"argument {arg!r} is not a buffer "
                           f"(buffers: {', '.join(sorted(names)) or 'none'})")
        if not isinstance(arg, (str, int, float)) or isinstance(arg, bool):
            raise error_at(path, root, prefix + ("args", i), "an argument is a buffer name or a number")
