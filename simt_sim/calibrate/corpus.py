"""The generated differential corpus (docs/corpus.md): build the generator's kernels with nvcc,
run them in the simulator in SASS or PTX mode, compare with the outputs recorded on the H100, and
classify every outcome.

Build: corpus_gen.generate_module -> <build>/<module>/<module>.cu -> `nvcc -ptx` with the module's
flags -> one PTX file per kernel ("unit": the kernel's .entry with the functions it calls and the
module's declarations; a -G module stays one unit, its debug sections name every function).  The
simulator's SASS mode and the hardware run the same cubin: simt_sim.frontend.sass.ptx_to_cubin of
the unit (ptxas -arch=sm_90 -O3 -lineinfo; -O0 for -G PTX).

Outcome classes: exact (every exact word bit for bit, the approximate words within their bound),
wrong (exit 0 with different words), refused (InputError: an unknown opcode/modifier, ...),
faulted (RuntimeFault: out of bounds, deadlock, limit ...), traceback (any other exception),
timeout (the kernel ran past its time), build (the unit could not be built here: nvcc/ptxas).

Command line (re-measure after fixes):
  python -m simt_sim.calibrate.corpus replay [--mode sass|ptx|both] [--ids k00003 ...]
        [--sample N] [--workers N] [--timeout S] [--out outcomes.json.gz]
  python -m simt_sim.calibrate.corpus summary [outcomes.json.gz]
"""
from __future__ import annotations

import argparse
import base64
import collections
import dataclasses
import functools
import gzip
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from simt_sim.files import atomic_open, write_atomic
from simt_sim.calibrate import corpus_gen as G

ROOT = Path(__file__).resolve().parents[2]
CORPUS_DIR = ROOT / "tests" / "data" / "corpus"
RECORDS = CORPUS_DIR / "records.json.gz"
OUTCOMES_BEFORE = CORPUS_DIR / "outcomes_before.json.gz"
KNOWN_FAILURES = CORPUS_DIR / "known_failures.json"
# a fixed absolute build directory: nvcc -G writes the source's path into the PTX's debug info
DEFAULT_BUILD = Path(os.environ.get("SIMT_SIM_CORPUS_BUILD", "/tmp/simt-sim-corpus"))
NVCC_QUIET = ["-diag-suppress", "550,177,549"]
CLASSES = ("exact", "wrong", "refused", "faulted", "traceback", "timeout", "build", "not_run")
MAX_WARP_INSTRUCTIONS = 5_000_000


# ---------------------------------------------------------------------------- corpus layout

@dataclasses.dataclass(frozen=True)
class Layout:
    """Which modules make up the corpus: main modules (-O3 or -use_fast_math, G.KERNELS_PER_MODULE
    kernels each) and -G modules (G_KERNELS each), all from one base seed."""
    base: int = 1
    main_modules: int = 104
    g_modules: int = 100
    g_kernels: int = 3

    def modules(self) -> list[tuple[int, str, int]]:
        """(index, flags, kernels) of every module."""
        out = [(i, G.module_flags(self.base, i), G.KERNELS_PER_MODULE) for i in range(self.main_modules)]
        out += [(self.main_modules + j, "G", self.g_kernels) for j in range(self.g_modules)]
        return out


def module_source(base: int, index: int, flags: str, n: int, drop=()) -> G.Module:
    return G.generate_module(base, index, n, flags=flags, drop=set(drop))


# ---------------------------------------------------------------------------- PTX units

def ptx_body_digest(text: str) -> str:
    """sha256 of a PTX file without its leading comment block (nvcc's build id), its `.file` and
    `.loc` lines and its `.section .debug_*` blocks (-G debug info: they name the toolkit's include
    directory and lines in its headers, which differ between installations of the same nvcc), so
    such machines agree."""
    lines, depth, in_debug = [], 0, False
    for ln in text.splitlines():
        if re.match(r"\s*\.section\s+\.debug", ln):          # DWARF bytes: they hold header line numbers
            in_debug, depth = True, 0
        if in_debug:
            depth += ln.count("{") - ln.count("}")
            if depth <= 0 and "}" in ln:
                in_debug = False
            continue
        if not re.match(r"\s*\.(file|loc)\s", ln):
            lines.append(ln)
    start = next((i for i, ln in enumerate(lines) if ln.strip() and not ln.startswith("//")), 0)
    return hashlib.sha256("\n".join(lines[start:]).encode()).hexdigest()


_ENTRY_RE = re.compile(r"\.entry\s+(\w+)")
_FUNC_RE = re.compile(r"\.func\s*(?:\([^)]*\)\s*)?([\w$]+)")


def _top_items(text: str) -> tuple[str, list[str]]:
    """The PTX header (through .address_size) and the top-level items after it, each with the
    comments before it."""
    m = re.search(r"^\s*\.address_size\s+\d+\s*$", text, re.M)
    head, rest = (text[:m.end()], text[m.end():]) if m else ("", text)
    items, i, n = [], 0, len(rest)
    start, depth = 0, 0
    while i < n:
        c = rest[i]
        if rest.startswith("//", i):
            j = rest.find("\n", i)
            i = n if j < 0 else j + 1
            continue
        if rest.startswith("/*", i):
            j = rest.find("*/", i)
            i = n if j < 0 else j + 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                k = i + 1
                while k < n and rest[k] in " \t\r\n":
                    k += 1
                if k >= n or rest[k] != ";":
                    items.append(rest[start:i + 1])
                    start = i + 1
        elif c == ";" and depth == 0:
            items.append(rest[start:i + 1])
            start = i + 1
        i += 1
    tail = rest[start:]
    if tail.strip() and not all(ln.strip().startswith("//") or not ln.strip() for ln in tail.splitlines()):
        items.append(tail)
    return head, items


def split_ptx(text: str) -> dict[str, str]:
    """One PTX text per .entry: the header, every declaration, the .func items the entry calls
    (transitively), and the entry; items keep their order."""
    head, items = _top_items(text)
    kinds = []
    for it in items:
        code = "\n".join(ln for ln in it.splitlines() if not ln.strip().startswith("//"))
        e = _ENTRY_RE.search(code)
        f = None if e else _FUNC_RE.search(code)
        kinds.append(("entry", e.group(1)) if e else ("func", f.group(1)) if f else ("decl", None))
    funcs = {name for k, name in kinds if k == "func"}
    refs = {}
    for it, (k, name) in zip(items, kinds):
        if k in ("entry", "func"):
            words = set(re.findall(r"[\w$]+", it))
            refs.setdefault(name, set()).update(w for w in words & funcs if w != name)
    out = {}
    for it, (k, name) in zip(items, kinds):
        if k != "entry":
            continue
        need, todo = set(), [name]
        while todo:
            for d in refs.get(todo.pop(), ()):
                if d not in need:
                    need.add(d)
                    todo.append(d)
        parts = [head]
        for it2, (k2, n2) in zip(items, kinds):
            if k2 == "decl" or (k2 == "func" and n2 in need) or (k2 == "entry" and n2 == name):
                parts.append(it2)
        out[name] = "".join(parts).rstrip() + "\n"
    return out


@functools.lru_cache(maxsize=1)
def nvcc_version() -> str:
    r = subprocess.run(["nvcc", "--version"], capture_output=True, text=True)
    return next((ln.strip() for ln in r.stdout.splitlines() if "release" in ln), r.stdout.strip()[-80:])


def _nvcc_errors(stderr: str, source: str) -> set[str]:
    """Kernel ids whose source lines nvcc reported errors on."""
    marks = [(i + 1, m.group(1)) for i, ln in enumerate(source.splitlines())
             for m in [re.match(r"// ---- (k\d+)", ln)] if m]
    bad = set()
    for m in re.finditer(r"\((\d+)\): error", stderr):
        line = int(m.group(1))
        owner = [k for ln, k in marks if ln <= line]
        if owner:
            bad.add(owner[-1])
    return bad


@dataclasses.dataclass
class BuiltModule:
    name: str
    flags: str
    specs: list                  # KernelSpec of the kernels built
    units: dict                  # kernel id -> PTX path
    dropped: list                # kernels nvcc refused (their ids)
    ptx_digest: dict             # kernel id -> ptx_body_digest of its unit
    error: str = ""
    source_sha256: str = ""


def build_module(base: int, index: int, flags: str, n: int, build: Path = DEFAULT_BUILD,
                 drop=None, retries: int = 3) -> BuiltModule:
    """Generate, nvcc -ptx and split one module.  drop=None: learn which kernels nvcc refuses and
    leave them out (up to `retries` times); a list: leave exactly those out (the records' list)."""
    name = f"m{index:03d}"
    d = build / name
    d.mkdir(parents=True, exist_ok=True)
    dropped = list(drop or [])
    for _ in range(retries + 1):
        mod = module_source(base, index, flags, n, dropped)
        cu, ptx = d / f"{name}.cu", d / f"{name}.ptx"
        cmd = ["nvcc", "-ptx", *G.FLAGS[flags], *NVCC_QUIET, "-o", ptx.name, cu.name]
        # the PTX of the same source, flags and nvcc is reused (the tests replay a few kernels of
        # many modules, each test file on its own): a stamp beside it names what made it
        stamp = d / f"{name}.stamp"
        made_by = hashlib.sha256("\0".join([mod.source, *cmd, nvcc_version()]).encode()).hexdigest()
        if ptx.exists() and stamp.exists() and stamp.read_text() == made_by:
            break
        stamp.unlink(missing_ok=True)
        write_atomic(cu, mod.source)
        r = subprocess.run(cmd, cwd=d, capture_output=True, text=True)
        if r.returncode == 0:
            write_atomic(stamp, made_by)
            break
        bad = _nvcc_errors(r.stderr, mod.source)
        if drop is not None or not bad:
            return BuiltModule(name, flags, [], {}, dropped, {}, f"nvcc failed: {r.stderr.strip()[:500]}")
        dropped += sorted(bad)
    else:
        return BuiltModule(name, flags, [], {}, dropped, {}, "nvcc failed after retries")
    text = ptx.read_text()
    units, digest = {}, {}
    if flags == "G":
        for s in mod.kernels:
            units[s.id] = ptx
            digest[s.id] = ptx_body_digest(text)
    else:
        for kid, part in split_ptx(text).items():
            p = d / f"{kid}.ptx"
            write_atomic(p, part)
            units[kid] = p
            digest[kid] = ptx_body_digest(part)
    return BuiltModule(name, flags, mod.kernels, units, dropped, digest,
                       source_sha256=hashlib.sha256(mod.source.encode()).hexdigest())


def cubin_of(ptx: Path) -> Path:
    """The cubin the simulator's SASS mode runs for this PTX (and the hardware ran)."""
    from simt_sim.frontend.sass import ptx_to_cubin
    return ptx_to_cubin(ptx)


# ---------------------------------------------------------------------------- comparing

def out_digest(words: np.ndarray, spec: G.KernelSpec) -> str:
    w = np.asarray(words, np.uint32).copy()
    w[spec.approx_mask()] = 0
    return hashlib.sha256(w.tobytes()).hexdigest()


def approx_words(words: np.ndarray, spec: G.KernelSpec) -> np.ndarray:
    return np.asarray(words, np.uint32)[spec.approx_mask()]


def encode_words(w: np.ndarray) -> str:
    return base64.b64encode(np.asarray(w, "<u4").tobytes()).decode()


def decode_words(s: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(s), "<u4").copy()


# Generator functions that become a MUFU approximation, and under which flags ("" = always): the
# PTX instruction whose measured hardware-vs-simulator difference (tools/mufu_accuracy.py) may widen
# the word's bound.  Accurate library forms (tanhf without -use_fast_math) keep the default bound.
MUFU_OF = {"tanhf": ("tanh.approx.f32", "fast"), "__sinf": ("sin.approx.ftz.f32", ""),
           "__cosf": ("cos.approx.ftz.f32", ""), "__expf": ("ex2.approx.ftz.f32", ""),
           "exp2f": ("ex2.approx.ftz.f32", "fast"), "__log2f": ("lg2.approx.ftz.f32", ""),
           "__logf": ("lg2.approx.ftz.f32", ""), "rsqrtf": ("rsqrt.approx.ftz.f32", "fast")}
MUFU_ACCURACY = ROOT / "tests" / "data" / "h100" / "mufu_accuracy.json"


@functools.lru_cache(maxsize=1)
def mufu_bound_scales() -> dict:
    """{PTX instruction: factor >= 1 on the float32 bound}: the largest |simulated - H100| measured
    for that instruction in units of G.APPROX_BOUND["f32"] (tests/data/h100/mufu_accuracy.json);
    empty without the recording."""
    if not MUFU_ACCURACY.exists():
        return {}
    rec = json.loads(MUFU_ACCURACY.read_text())
    return {k: max(1.0, float(v["bound_scale_f32"])) for k, v in rec["functions"].items()}


def bound_scale(func: str, kind: str, flags: str) -> float:
    """The factor on the default bound of an approximate word made by generator function `func`."""
    instr, only = MUFU_OF.get(func, (None, ""))
    if instr is None or kind != "f32" or (only and only != flags):
        return 1.0
    return mufu_bound_scales().get(instr, 1.0)


def approx_error(got: np.ndarray, want: np.ndarray, kinds: list, funcs: list = (),
                 flags: str = "") -> tuple[bool, float]:
    """Whether every approximate word is within its bound (G.APPROX_BOUND by the precision of the
    function's result, widened to the H100's measured MUFU difference for the function, see
    bound_scale), and the largest error in units of the bound (<= 1 passes)."""
    n = len(kinds)
    g = got.view(np.float32).astype(np.float64).reshape(-1, n)
    w = want.view(np.float32).astype(np.float64).reshape(-1, n)
    worst = 0.0
    for k, kind in enumerate(kinds):
        scale = bound_scale(funcs[k], kind, flags) if k < len(funcs) else 1.0
        rel, ab = (scale * x for x in G.APPROX_BOUND[kind])
        a, b = g[:, k], w[:, k]
        same = (a == b) | (np.isnan(a) & np.isnan(b))
        with np.errstate(all="ignore"):
            err = np.abs(a - b) / (ab + rel * np.abs(b))
        err = np.where(same, 0.0, np.where(np.isfinite(err), err, np.inf))
        worst = max(worst, float(err.max()) if err.size else 0.0)
    return worst <= 1.0, worst


def spec_of(rec: dict) -> G.KernelSpec:
    return G.KernelSpec(rec["id"], rec["seed"], rec["module"], rec["flags"], rec["block"], rec["n_approx"],
                        list(rec["approx_kinds"]), list(rec.get("features", [])), list(rec.get("approx_funcs", [])))


def compare(words: np.ndarray, rec: dict) -> tuple[str, str, dict]:
    """(class, message, details) of simulated words against a record."""
    spec = spec_of(rec)
    words = np.asarray(words, np.uint32)
    if words.size != spec.out_words:
        return "wrong", f"{words.size} output words, expected {spec.out_words}", {}
    details = {}
    exact = out_digest(words, spec) == rec["digest"]
    ok_approx = True
    if spec.n_approx:
        ok_approx, worst = approx_error(approx_words(words, spec), decode_words(rec["approx"]), spec.approx_kinds,
                                        spec.approx_funcs, spec.flags)
        details["approx_err"] = round(worst, 4) if np.isfinite(worst) else "inf"
    first = [int(x) for x in words[:16]]
    diff16 = [i for i, (a, b) in enumerate(zip(first, rec["first16"])) if a != b]
    if diff16:
        details["diff16"] = diff16
    if "full" in rec and not exact:
        details.update(word_differences(words, decode_words(rec["full"]), spec))
    if exact and ok_approx:
        return "exact", "", details
    if exact:
        return "wrong", f"approximate words beyond their bound ({details['approx_err']} x bound)", details
    if "diff_vars" in details:
        return "wrong", f"words differ in {' '.join(sorted(details['diff_vars']))}", details
    return "wrong", f"output differs (digest); first-16 words differing: {diff16 or 'none'}", details


# ---------------------------------------------------------------------------- simulating

WORD_NAMES = ("u0", "u1", "i0", "i1", "U0.lo", "U0.hi", "I0.lo", "I0.hi", "f0", "f1", "d0.lo", "d0.hi", "h0|b0")


def word_name(i: int, spec: G.KernelSpec) -> str:
    """What output word i holds: a variable (by its place in the thread's words), an approximate
    word, a private atomic word or a shared global atomic slot."""
    w, nt = spec.words_per_thread, spec.threads
    if i < nt * w:
        k = i % w
        return WORD_NAMES[k] if k < G.NW else f"approx{k - G.NW}"
    if i < nt * (w + 1):
        return "gp32"
    if i < nt * (w + 3):
        return "gp64"
    return f"gslot{i - nt * (w + 3)}"


def word_differences(got: np.ndarray, want: np.ndarray, spec: G.KernelSpec) -> dict:
    """Which exact words differ from the full hardware output: their count, the variables they
    hold and the first one (index, name, simulated, hardware)."""
    mask = ~spec.approx_mask()
    bad = np.nonzero((got != want) & mask)[0]
    if not bad.size:
        return {}
    names = collections.Counter(word_name(int(i), spec) for i in bad)
    i = int(bad[0])
    return {"n_diff": int(bad.size), "diff_vars": dict(names.most_common(6)),
            "first_diff": [i, word_name(i, spec), f"{int(got[i]):#010x}", f"{int(want[i]):#010x}"]}


class KernelTimeout(Exception):
    pass


def _alarm(signum, frame):
    raise KernelTimeout()


def simulate_words(ptx: Path, spec: G.KernelSpec, mode: str) -> np.ndarray:
    # the layers below the API (calibrate sits under it): load, configure, launch
    from simt_sim.frontend.sass_lower import load_kernel
    from simt_sim.machine.config import load_config
    from simt_sim.run.functional import launch
    program = load_kernel(str(ptx), spec.id, mode)
    # the replay bounds each kernel itself (run_one's timeout), so no wall-clock budget of the engine's
    cfg = load_config("h100", [f"limits.max_warp_instructions={MAX_WARP_INSTRUCTIONS}", "limits.wall_seconds=0"])
    buffers = {"in": G.input_words(), "out": G.output_init(spec)}
    result = launch(program, G.GRID, spec.block, ["in", "out"], buffers, cfg.launch_config())
    return np.asarray(result.buffers["out"]).view(np.uint32)


def first_line(e: BaseException) -> str:
    s = str(e).strip()
    return (s.splitlines()[0] if s else type(e).__name__)[:400]


def run_one(ptx: Path, rec: dict, mode: str, timeout: float) -> dict:
    """Simulate one recorded kernel in one mode and classify the outcome."""
    from simt_sim.errors import InputError, RuntimeFault
    spec = spec_of(rec)
    t0 = time.time()
    out = {"id": rec["id"], "mode": mode}
    old = signal.signal(signal.SIGALRM, _alarm) if timeout else None
    if timeout:
        signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        words = simulate_words(ptx, spec, mode)
        cls, msg, details = compare(words, rec)
        out.update(details)
    except KernelTimeout:
        cls, msg = "timeout", f"ran past {timeout:g} s"
    except InputError as e:
        cls, msg = "refused", first_line(e)
    except RuntimeFault as e:
        cls, msg = "faulted", first_line(e)
    except Exception as e:                      # noqa: BLE001 - a traceback is a class of its own
        import traceback
        tb = traceback.extract_tb(e.__traceback__)
        where = f" at {Path(tb[-1].filename).name}:{tb[-1].lineno}" if tb else ""
        cls, msg = "traceback", f"{type(e).__name__}: {first_line(e)}{where}"
    finally:
        if timeout:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
    out.update({"class": cls, "error": msg, "seconds": round(time.time() - t0, 2)})
    return out


def _serve(conn) -> None:
    """A pool process: run the tasks the parent sends, one at a time, until it sends None."""
    while True:
        task = conn.recv()
        if task is None:
            return
        p, rec, mode, timeout = task
        conn.send(run_one(Path(p), rec, mode, timeout))


def replay_tasks(tasks: list, workers: int, deadline: float | None = None, progress=None) -> list[dict]:
    """Run tasks [(ptx, record, mode, timeout), ...] on `workers` forked processes (they share the
    parent's compiled engine).  A task running past twice its timeout (compiled code does not see
    the alarm) has its process killed and is recorded as timeout; tasks not finished by `deadline`
    (time.time()) come back as not_run."""
    def not_run(t):
        return {"id": t[1]["id"], "mode": t[2], "class": "not_run", "error": "deadline"}
    results: dict[int, dict] = {}

    def finish(i, o):
        results[i] = o
        if progress:
            progress(o)
    if workers <= 1:
        for i, t in enumerate(tasks):
            finish(i, not_run(t) if deadline and time.time() > deadline else run_one(Path(t[0]), t[1], t[2], t[3]))
        return [results[i] for i in range(len(tasks))]
    import multiprocessing as mp
    from multiprocessing.connection import wait
    ctx = mp.get_context("fork")
    queue = list(range(len(tasks)))[::-1]
    slots = {}                      # conn -> [process, task index or None, started]

    def spawn():
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=_serve, args=(child,), daemon=True)
        proc.start()
        child.close()
        slots[parent] = [proc, None, 0.0]

    def feed(conn):
        if queue and not (deadline and time.time() > deadline):
            i = queue.pop()
            conn.send(tasks[i])
            slots[conn][1:] = [i, time.time()]
        else:
            slots[conn][1] = None
    for _ in range(min(workers, len(tasks))):
        spawn()
    for conn in list(slots):
        feed(conn)
    try:
        while any(s[1] is not None for s in slots.values()):
            for conn in wait([c for c, s in slots.items() if s[1] is not None], timeout=0.2):
                proc, i, _ = slots[conn]
                try:
                    finish(i, conn.recv())
                except (EOFError, OSError):
                    finish(i, {"id": tasks[i][1]["id"], "mode": tasks[i][2], "class": "traceback",
                               "error": f"the simulating process died (exit {proc.exitcode})"})
                    del slots[conn]
                    spawn()
                    conn = list(slots)[-1]
                feed(conn)
            now = time.time()
            for conn, (proc, i, started) in list(slots.items()):
                limit = 2 * (tasks[i][3] or 60.0) if i is not None else None
                if i is not None and now - started > limit:
                    proc.kill()
                    finish(i, {"id": tasks[i][1]["id"], "mode": tasks[i][2], "class": "timeout",
                               "error": f"ran past {limit:g} s", "seconds": round(now - started, 1)})
                    del slots[conn]
                    spawn()
                    feed(list(slots)[-1])
            if deadline and now > deadline:
                break
    finally:
        for conn, (proc, i, _) in slots.items():
            if proc.is_alive():
                proc.kill()
    return [results.get(i) or not_run(t) for i, t in enumerate(tasks)]


def warm_engine(ptx: Path, rec: dict) -> None:
    """Compile the engine (numba) in this process before forking the pool."""
    for mode in ("ptx", "sass"):
        try:
            run_one(ptx, rec, mode, 0)
        except Exception:       # noqa: BLE001 - warming only
            pass


# ---------------------------------------------------------------------------- summaries

def normalise(msg: str) -> str:
    """An error message without file paths, numbers and pcs, to group like failures."""
    s = re.sub(r"^\S+\.ptx:\d+:\d+: ", "", msg)
    s = re.sub(r"^\S+\.cubin:\S+ ", "", s)
    s = re.sub(r"\bk\d{5}\w*", "K", s)
    s = re.sub(r"0x[0-9a-fA-F]+", "#", s)
    s = re.sub(r"\b\d+\b", "#", s)
    s = re.sub(r"\(allowed:.*", "(allowed: ...)", s)
    return s[:200]


def summarise(outcomes: list[dict]) -> dict:
    """Counts per mode and class, and the most common messages per mode and class with the
    smallest kernel id showing each (a reproducer)."""
    counts = collections.defaultdict(collections.Counter)
    msgs = collections.defaultdict(collections.Counter)
    example = {}
    for o in outcomes:
        counts[o["mode"]][o["class"]] += 1
        if o["class"] not in ("exact", "not_run"):
            key = (o["mode"], o["class"], normalise(o.get("error", "")))
            msgs[(o["mode"], o["class"])][key[2]] += 1
            example[key] = min(example.get(key, o["id"]), o["id"])
    top = {f"{m}/{c}": [{"count": n, "message": msg, "example": example[(m, c, msg)]}
                        for msg, n in cnt.most_common(15)] for (m, c), cnt in sorted(msgs.items())}
    return {"counts": {m: dict(c) for m, c in sorted(counts.items())}, "top": top}


def format_summary(s: dict) -> str:
    lines = []
    for mode, c in s["counts"].items():
        total = sum(c.values())
        lines.append(f"{mode}: {total} kernels: " + ", ".join(f"{k} {c.get(k, 0)}" for k in CLASSES if c.get(k)))
    for key, rows in s["top"].items():
        lines.append(f"-- {key}")
        for r in rows:
            lines.append(f"  {r['count']:5d}  {r['example']}  {r['message']}")
    return "\n".join(lines)


def write_json_gz(path: Path, obj) -> None:
    data = json.dumps(obj, separators=(",", ":"), sort_keys=True).encode()
    with atomic_open(path, "wb") as f:
        with gzip.GzipFile(fileobj=f, mode="wb", mtime=0, compresslevel=9) as g:
            g.write(data)


def read_json_gz(path: Path):
    with gzip.open(path, "rb") as f:
        return json.loads(f.read())


# ---------------------------------------------------------------------------- replay (CLI)

def load_records(path: Path = RECORDS) -> dict:
    return read_json_gz(path)


def layout_of(records: dict) -> Layout:
    g = records["generator"]
    return Layout(g["base_seed"], g["main_modules"], g["g_modules"], g["g_kernels"])


def rebuild(records: dict, modules: set[str] | None = None, build: Path = DEFAULT_BUILD, jobs: int = 2) -> dict:
    """Rebuild the named modules (default: all) as the records list them: {module: BuiltModule}."""
    from concurrent.futures import ThreadPoolExecutor
    lay = layout_of(records)
    todo = [(i, f, n) for i, f, n in lay.modules() if modules is None or f"m{i:03d}" in modules]
    mods = records["modules"]

    def one(t):
        i, f, n = t
        name = f"m{i:03d}"
        return name, build_module(lay.base, i, f, n, build, drop=mods[name]["dropped"])
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        return dict(pool.map(one, todo))


def replay(ids=None, modes=("sass", "ptx"), workers=2, timeout=60.0, records_path: Path = RECORDS,
           build: Path = DEFAULT_BUILD, sample: int | None = None, progress=None,
           deadline: float | None = None) -> list[dict]:
    """Simulate recorded kernels in the given modes and classify each against its record.  Kernels
    not started by `deadline` (a time.time() value) are classed not_run, so a bounded run still
    writes its table."""
    records = load_records(records_path)
    recs = {r["id"]: r for r in records["kernels"]}
    chosen = sorted(recs) if not ids else list(ids)
    unknown = [k for k in chosen if k not in recs]
    if unknown:
        raise SystemExit(f"not in the records: {' '.join(unknown[:10])}")
    if sample:
        step = max(1, len(chosen) // sample)
        chosen = chosen[::step][:sample]
    built = rebuild(records, {recs[k]["module"] for k in chosen}, build, jobs=workers)
    out, tasks = [], []
    for k in chosen:
        b = built[recs[k]["module"]]
        if k not in b.units:
            out += [{"id": k, "mode": m, "class": "build", "error": b.error or "not built"} for m in modes]
            continue
        if b.ptx_digest[k] != recs[k]["ptx_sha256"]:
            out += [{"id": k, "mode": m, "class": "build", "error": "regenerated PTX differs from the recorded "
                     "PTX (generator or nvcc changed)"} for m in modes]
            continue
        funcs = {sp.id: sp.approx_funcs for sp in b.specs}     # the generator's, not in the first records
        tasks += [(str(b.units[k]), dict(recs[k], approx_funcs=funcs.get(k, [])), m, timeout) for m in modes]
    if tasks and workers > 1:
        warm_engine(Path(tasks[0][0]), tasks[0][1])
    return out + replay_tasks(tasks, workers, deadline=deadline, progress=progress)


def update_known_failures(outcomes: list[dict], label: str = "", path: Path = KNOWN_FAILURES) -> int:
    """Replace the entries of the outcomes' (kernel, mode) pairs by what the outcomes say (not_run
    and build outcomes leave an entry as it was)."""
    doc = json.loads(path.read_text()) if path.exists() else {"failures": []}
    known = {(f["id"], f["mode"]): f for f in doc["failures"]}
    for o in outcomes:
        if o["class"] in ("not_run", "build"):
            continue
        key = (o["id"], o["mode"])
        if o["class"] == "exact":
            known.pop(key, None)
        else:
            known[key] = {"id": o["id"], "mode": o["mode"], "class": o["class"], "error": o.get("error", "")[:160]}
    doc = {"about": "kernels and modes of the generated corpus that do not reproduce the H100's outputs yet "
                    "(docs/corpus.md); tests/test_generated_corpus.py requires every other one to be exact and "
                    "every one listed to still fail. Update: python -m simt_sim.calibrate.corpus known-failures "
                    "OUTCOMES.json.gz",
           "measured": label or doc.get("measured", ""),
           "failures": [known[k] for k in sorted(known)]}
    rows = ",\n".join(json.dumps(f, sort_keys=True) for f in doc["failures"])
    write_atomic(path, f'{{"about": {json.dumps(doc["about"])},\n"measured": {json.dumps(doc["measured"])},\n'
                       f'"failures": [\n{rows}\n]}}\n')
    return len(known)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m simt_sim.calibrate.corpus",
                                 description="replay the generated differential corpus (docs/corpus.md)")
    sub = ap.add_subparsers(dest="cmd", required=True)
    rp = sub.add_parser("replay", help="simulate recorded kernels and compare with the H100's outputs")
    rp.add_argument("--mode", choices=("sass", "ptx", "both"), default="both")
    rp.add_argument("--ids", nargs="*", help="kernel ids (default: all)")
    rp.add_argument("--sample", type=int, help="an evenly spaced sample of this many kernels")
    rp.add_argument("--workers", type=int, default=2)
    rp.add_argument("--timeout", type=float, default=60.0, help="seconds per kernel and mode")
    rp.add_argument("--records", type=Path, default=RECORDS)
    rp.add_argument("--build", type=Path, default=DEFAULT_BUILD)
    rp.add_argument("--out", type=Path, help="write the outcome table here (.json.gz)")
    rp.add_argument("--deadline", type=float, help="seconds from now after which no further kernel starts "
                    "(the rest are classed not_run)")
    rp.add_argument("--verbose", "-v", action="store_true", help="print every outcome")
    rp.add_argument("--update-known", action="store_true", help="update tests/data/corpus/known_failures.json "
                    "with these outcomes")
    kf = sub.add_parser("known-failures", help="update tests/data/corpus/known_failures.json from an outcome "
                        "table (its kernels and modes only: exact ones leave the list, failing ones enter it)")
    kf.add_argument("path", type=Path)
    kf.add_argument("--label", default="", help="what was measured (a commit)")
    sm = sub.add_parser("summary", help="print the summary of an outcome table")
    sm.add_argument("path", type=Path, nargs="?", default=OUTCOMES_BEFORE)
    a = ap.parse_args(argv)
    if a.cmd == "known-failures":
        doc = read_json_gz(a.path) if a.path.suffix == ".gz" else json.loads(a.path.read_text())
        n = update_known_failures(doc["outcomes"] if isinstance(doc, dict) else doc, a.label)
        print(f"{KNOWN_FAILURES}: {n} failing kernel-modes")
        return 0
    if a.cmd == "summary":
        doc = read_json_gz(a.path)
        print(format_summary(summarise(doc["outcomes"] if isinstance(doc, dict) else doc)))
        return 0
    if shutil.which("nvcc") is None:
        print("error: nvcc not found (the corpus is rebuilt from the generator's seeds)", file=sys.stderr)
        return 2
    modes = ("sass", "ptx") if a.mode == "both" else (a.mode,)

    def show(o):
        if a.verbose:
            print(f"{o['id']} {o['mode']:4s} {o['class']:9s} {o.get('error', '')}", flush=True)
    deadline = time.time() + a.deadline if a.deadline else None
    outcomes = replay(a.ids, modes, a.workers, a.timeout, a.records, a.build, a.sample, progress=show,
                      deadline=deadline)
    if a.verbose:
        for o in outcomes:
            if o["class"] == "build":
                show(o)
    print(format_summary(summarise(outcomes)))
    if a.out:
        write_json_gz(a.out, {"outcomes": outcomes})
    if a.update_known:
        print(f"{KNOWN_FAILURES}: {update_known_failures(outcomes)} failing kernel-modes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
