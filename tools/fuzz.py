"""Fuzz simt-sim's inputs: mutated PTX, manifests, configs, `--set` values, buffer specs, recorded
references, SASS listings and cubins, each run through the CLI (`main`, in a worker process, or a
real `python -m simt_sim` subprocess) or the Python API, with a per-run timeout and memory cap.

Every outcome is classified:

    ok          the run finished (exit 0 or 1, or the API returned)
    input       a clean bad-input error (exit 2, InputError: "error: ..."; `located` counts those
                with file:line:column)
    fault       a clean runtime fault (exit 3, RuntimeFault)
    traceback   any other exception (or a subprocess's "Traceback"): a finding
    timeout     the run passed its time limit (the worker is killed): a finding
    memory      MemoryError (the memory cap hit): a finding
    crash       the worker died (of a signal, or exited): a finding
    bad-exit    a CLI exit code outside 0-3, or exit 2 without "error:": a finding

Findings are deduplicated by (outcome, exception type, innermost simt_sim frame) and each distinct
one is saved with a reproducer reduced line by line (FINDINGS/NN-<outcome>/: the input files,
`command.txt` and the traceback).  Inputs come from a seeded generator: input i of seed S is the
same on every machine and with any number of workers.

    python tools/fuzz.py --inputs 300 --workers 2                 # the bounded CI profile's size
    python tools/fuzz.py --inputs 100000 --workers 16 --out fuzz-out --subprocess-every 100
    python tools/fuzz.py --inputs 2000 --categories ptx,set --seed 7

docs/fuzzing.md describes the categories and mutations.
"""
from __future__ import annotations

import argparse
import collections
import contextlib
import io
import json
import math
import multiprocessing
import os
import random
import signal
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
CATEGORIES = ("ptx", "manifest", "config", "set", "buffer", "reference", "sass", "cubin")
FINDING_OUTCOMES = ("traceback", "timeout", "memory", "crash", "bad-exit")
LIMITS = ["limits.max_warp_instructions=2000", "limits.max_cycles=50000"]
MAX_SEED_BYTES = 24_000            # PTX seeds larger than this are left out (keeps each run small)

# ---- interesting values ------------------------------------------------------------------------

NUMBERS = ["0", "1", "-1", "010", "08", "0777", "0x", "0x0", "0xFFFFFFFF", "0xFFFFFFFFFFFFFFFF",
           "0x8000000000000000", "0x10000000000000000", "18446744073709551615", "18446744073709551616",
           "2147483647", "2147483648", "4294967296", "-2147483649", "-9223372036854775809",
           "99999999999999999999999999999", "0f7FC00000", "0f7F800000", "0f00000000", "0fFFFFFFFF", "0f1",
           "0d7FF8000000000000", "0dFFFFFFFFFFFFFFFF", "0d0", "1e400", "1.5", "-0.0", "1.0e", "0b101",
           "0B1111", "0x1p3", "1U", "0x7fffffffU", "00000000000000000000010", "-", "+3", "0xG"]
VALUES = [None, True, False, 0, -1, 1, 3, 33, 1025, 2**31 - 1, 2**31, 2**32, 2**40, 2**63, 2**64, -2**63,
          10**30, 0.5, 1e308, -1e-308, float("nan"), float("inf"), "", " ", "x", "x" * 3000, "h100",
          "0x10", "1e3", "010", "../../../../etc/passwd", "\u00e9\u4e2d", [], [1], [1, 2, 3], ["a", None],
          {}, {"a": 1}, {"x": {"y": [None]}}]
SET_VALUES = ["0", "1", "-1", "2", "3", "32", "1024", "2147483647", "2147483648", "4294967296", "1e9",
              "1e400", "-1e400", ".nan", ".inf", "-.inf", "0.5", "-0.5", "true", "false", "null", "~", "",
              "x", "gto", "lrr", "[1, 2]", "{a: 1}", "[]", "'5'", "0x20", "010", "1_000", "!!binary aGk=",
              "*alias", "&a 1", "[[[[[[[[1]]]]]]]]", "h100", "1:2"]
DTYPES = ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64", "f16", "b32", "int", "", "I32"]
INITS = ["zeros", "range", "range(3,2)", "range(-1)", "fill(1)", "fill(-1e400)", "fill(nan)", "fill()",
         "values(1,2,3)", "values()", "random(seed=1)", "random(seed=1,low=5,high=1)",
         "random(seed=-1,low=-99999999999,high=99999999999)", "random(seed=1,sorted=true)", "random(bad=1)",
         "lane_id(32)", "lane_id(0)", "lane_id(-1)", "file(missing.npy)", "file(../x.npy)", "file(a.npy)",
         "range(", "fill(1", ")", "random(seed=2**70)", "values(0x10,010,1e5)"]
SIZES = ["0", "1", "32", "100", "-1", "2147483648", "4294967296", "1099511627776", "1e3", "3.5", "", "x",
         "1,2", "99999999999999999999"]
MODIFIERS = [".u8", ".s8", ".u16", ".s16", ".u32", ".s32", ".u64", ".s64", ".b8", ".b16", ".b32", ".b64",
             ".b128", ".f16", ".f16x2", ".bf16", ".f32", ".f64", ".pred", ".rn", ".rz", ".rm", ".rp", ".rni",
             ".sat", ".ftz", ".approx", ".full", ".wide", ".lo", ".hi", ".cc", ".global", ".shared", ".local",
             ".const", ".param", ".v2", ".v4", ".v8", ".sync", ".aligned", ".uni", ".cta", ".gpu", ".sys",
             ".relaxed", ".acquire", ".release", ".nc", ".volatile", ".eq", ".ne", ".lt", ".geu", ".and",
             ".or", ".xor", ".add", ".min", ".max", ".inc", ".exch", ".cas", ".L2::128B", ".x", ".y", ".w",
             ".bogus", "."]
REGISTERS = ["%r0", "%r99999", "%rd1", "%rd2147483648", "%p1", "%p0", "%f1", "%fd1", "%rs1", "%h1",
             "%tid.x", "%tid.w", "%ntid.y", "%ctaid.x", "%laneid", "%clock64", "%nope", "%", "%r-1", "_"]
PUNCT = [",", ";", "{", "}", "[", "]", "+", "-", "(", ")", "<", ">", "|", "!", "@", ":", "\\", '"', "\t"]
SASS_OPCODES = ["IMAD", "IADD3", "FFMA", "MOV", "LDG.E", "STG.E", "BRA", "EXIT", "BAR.SYNC", "ISETP.GE.AND",
                "SHFL.BFLY", "HMMA.16816.F32", "S2R", "LDS", "STS", "ATOMG.E.ADD", "BSSY", "BSYNC", "WARPSYNC",
                "NOP", "XYZZY", "IMAD.WIDE.U32", "LOP3.LUT", "CALL.REL", "RET.REL", "MUFU.RSQ", "F2I.S64"]


@dataclass
class Case:
    index: int
    category: str
    seed: str                               # the seed input's name
    files: dict[str, bytes]                 # relative path -> bytes, written into a fresh directory
    action: tuple                           # what the worker runs (see run_action)
    main_file: str | None = None            # the file a reproducer is reduced on
    note: str = ""                          # the mutations made

    def command(self) -> str:
        kind, *rest = self.action
        if kind == "cli":
            return "simt-sim " + " ".join(_quote(a) for a in rest[0])
        return f"{kind} {json.dumps(rest, default=str)}"


def _quote(a: str) -> str:
    return a if re.fullmatch(r"[\w./=:,@%+-]+", a) else "'" + a.replace("'", "'\\''") + "'"


# ---- seeds ---------------------------------------------------------------------------------------

@dataclass
class Seeds:
    programs: list[Path]                     # program dirs with a PTX kernel and a manifest
    ptx: list[Path]                          # PTX files (programs, tests, generated corpus)
    configs: list[Path]
    references: list[Path]
    cubin_programs: list[Path]               # programs with a committed cubin and its key
    opcodes: list[str] = field(default_factory=list)
    config_keys: list[str] = field(default_factory=list)


def small(p: Path) -> bool:
    try:
        return p.stat().st_size <= MAX_SEED_BYTES
    except OSError:
        return False


def generated_corpus(modules: int, kernels: int = 3) -> list[Path]:
    """PTX of the first `modules` generated-corpus modules (simt_sim/calibrate/corpus_gen.py, base
    seed 1, `kernels` kernels each), compiled by nvcc -O3 -ptx once and kept under
    ~/.cache/simt-sim/fuzz-corpus."""
    if not modules:
        return []
    sys.path.insert(0, str(ROOT))
    from simt_sim.calibrate.corpus_gen import generate_module
    cache = Path.home() / ".cache" / "simt-sim" / "fuzz-corpus"
    cache.mkdir(parents=True, exist_ok=True)
    out = []
    for i in range(modules):
        ptx = cache / f"m{i:03d}-{kernels}.ptx"
        if not ptx.exists():
            cu = ptx.with_suffix(".cu")
            cu.write_text(generate_module(1, i, kernels).source)
            r = subprocess.run(["nvcc", "-O3", "-ptx", "-arch=sm_90", str(cu), "-o", str(ptx) + ".tmp"],
                               capture_output=True, text=True)
            if r.returncode != 0:
                print(f"nvcc failed on {cu}: {r.stderr[:300]}", file=sys.stderr)
                continue
            os.replace(str(ptx) + ".tmp", ptx)
        out.append(ptx)
    return out


def find_seeds(corpus_dir: Path | None = None, generate: int = 0) -> Seeds:
    programs = sorted(d for d in (ROOT / "programs").glob("*/*")
                      if (d / "manifest.yaml").is_file() and (d / "kernel.ptx").is_file() and small(d / "kernel.ptx")
                      and sum(f.stat().st_size for f in d.iterdir() if f.is_file()) < 400_000
                      and "more_launches" not in (d / "manifest.yaml").read_text())
    ptx = sorted(p for p in [*(ROOT / "programs").glob("**/*.ptx"), *(ROOT / "tests").glob("**/*.ptx")] if small(p))
    if corpus_dir is not None and corpus_dir.is_dir():      # a recorded generated corpus: its kernels' PTX
        found = sorted(p for p in corpus_dir.glob("m*/k*.ptx") if small(p))
        ptx += found[::max(1, len(found) // 400)]
    ptx += generated_corpus(generate)
    refs = []
    for pattern in ("h100.json", "h100-sass-counts.json", "h100-pc-stalls.json", "h200-memory.json"):
        refs += sorted(p for p in (ROOT / "programs").glob(f"*/*/reference/{pattern}") if p.stat().st_size < 200_000)
    cubins = [d for d in programs if (d / "kernel.sm_90.cubin.key").is_file()]
    opcodes = set()
    for p in ptx[:80]:
        for line in p.read_text(errors="replace").splitlines():
            m = re.match(r"\s*(?:@!?%\w+\s+)?([a-z][\w.:]*)\s", line)
            if m and not line.lstrip().startswith("."):
                opcodes.add(m.group(1))
    from_defaults = []
    try:
        sys.path.insert(0, str(ROOT))
        text = (ROOT / "configs" / "h100.yaml").read_text()
        from_defaults = sorted(flat_keys(yaml.safe_load(text)))
    except Exception:
        pass
    return Seeds(programs, ptx, sorted((ROOT / "configs").glob("*.yaml")), refs, cubins, sorted(opcodes),
                 from_defaults)


def flat_keys(d, prefix=""):
    for k, v in (d or {}).items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            yield from flat_keys(v, key + ".")
        else:
            yield key


def program_files(d: Path) -> dict[str, bytes]:
    return {f.name: f.read_bytes() for f in d.iterdir() if f.is_file() and f.stat().st_size < 300_000}


# ---- mutations -----------------------------------------------------------------------------------

TOKEN_RE = re.compile(r"0[xXfFdD][0-9a-fA-F]+U?|\d+\.\d*(?:[eE][-+]?\d+)?|\d+U?|%[\w.]+|[.\w$][\w.$:]*|\S")
NUM_RE = re.compile(r"(?<![\w%.$])-?(?:0[xXfFdD][0-9a-fA-F]+|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)U?(?![\w.])")


def mutate_ptx(rng: random.Random, text: str, seeds: Seeds, donors: list[str]) -> tuple[str, str]:
    """1-3 grammar-aware edits of PTX text; returns (text, what was done)."""
    lines = text.split("\n")
    done = []
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        op = rng.choice(("number", "number", "regcount", "modifier", "opcode", "register", "line", "token",
                         "truncate", "bytes", "shared", "offset", "label", "splice", "number"))
        body = [i for i, l in enumerate(lines) if l.strip() and not l.strip().startswith("//")] or [0]
        i = rng.choice(body)
        line = lines[i]
        if op == "number":
            nums = [(i, m) for i in body for m in NUM_RE.finditer(lines[i])]
            if nums:
                i, m = rng.choice(nums)
                lines[i] = lines[i][:m.start()] + rng.choice(NUMBERS) + lines[i][m.end():]
        elif op == "regcount":
            regs = [i for i in body if re.search(r"\.reg\s.*<\d+>", lines[i])]
            if regs:
                i = rng.choice(regs)
                lines[i] = re.sub(r"<\d+>", f"<{rng.choice(['0', '1', '65536', '2147483648', '-1', '99999999999', ''])}>",
                                  lines[i], count=1)
        elif op == "modifier":
            words = [m for m in re.finditer(r"\.[A-Za-z][\w:]*", line)]
            if words:
                m = rng.choice(words)
                new = rng.choice(MODIFIERS) if rng.random() < 0.8 else ""
                lines[i] = line[:m.start()] + new + line[m.end():]
        elif op == "opcode":
            m = re.match(r"(\s*(?:@!?%\w+\s+)?)([a-z][\w.:]*)", line)
            if m and seeds.opcodes and not line.lstrip().startswith("."):
                lines[i] = m.group(1) + rng.choice(seeds.opcodes) + line[m.end():]
        elif op == "register":
            regs = list(re.finditer(r"%[\w.]+", line))
            if regs:
                m = rng.choice(regs)
                lines[i] = line[:m.start()] + rng.choice(REGISTERS) + line[m.end():]
        elif op == "line":
            j = rng.choice(body)
            kind = rng.choice(("delete", "duplicate", "swap"))
            if kind == "delete":
                lines[i] = ""
            elif kind == "duplicate":
                lines.insert(i, line)
            else:
                lines[i], lines[j] = lines[j], lines[i]
        elif op == "token":
            toks = list(TOKEN_RE.finditer(line))
            if toks:
                m = rng.choice(toks)
                kind = rng.choice(("delete", "duplicate", "punct"))
                new = "" if kind == "delete" else (m.group(0) * 2 if kind == "duplicate" else rng.choice(PUNCT))
                lines[i] = line[:m.start()] + new + line[m.end():]
        elif op == "truncate":
            joined = "\n".join(lines)
            cut = rng.randrange(len(joined) + 1)
            lines = joined[:cut].split("\n")
        elif op == "bytes":
            pos = rng.randrange(len(line) + 1)
            lines[i] = line[:pos] + rng.choice(["\udcff", "\x00", "\u00e9", "a" * 20000, "\r", "\x1b", "\ufeff",
                                                "/*", "*/", "//", "\"unterminated"]) + line[pos:]
        elif op == "shared":
            arrays = [i for i in body if re.search(r"\.(shared|local|global|const)\b.*\[\d*\]", lines[i])]
            if arrays:
                i = rng.choice(arrays)
                lines[i] = re.sub(r"\[\d*\]", f"[{rng.choice(['0', '1', '4294967296', '2147483648', '-4', '1e9', ''])}]",
                                  lines[i], count=1)
        elif op == "offset":
            addrs = [i for i in body if re.search(r"\[[^\]]+\]", lines[i])]
            if addrs:
                i = rng.choice(addrs)
                lines[i] = re.sub(r"\[([^\]+]+)(\+-?\w+)?\]", lambda m: f"[{m.group(1)}+{rng.choice(NUMBERS)}]",
                                  lines[i], count=1)
        elif op == "label":
            lines[i] = re.sub(r"(bra(?:\.uni)?\s+)\$?[\w$]+", lambda m: m.group(1) + rng.choice(
                ["$L__nowhere", "0", "%r1", "$L__BB0_1$L", ""]), line, count=1)
        elif op == "splice" and donors:
            donor = rng.choice(donors).split("\n")
            lines.insert(i, rng.choice(donor))
        done.append(op)
    return "\n".join(lines), "+".join(done)


def mutate_tree(rng: random.Random, doc, values=VALUES):
    """One edit somewhere in a YAML / JSON tree: a value replaced, a key deleted, added or renamed,
    a list grown or cut.  Returns (doc, what)."""
    if not isinstance(doc, (dict, list)) or not doc:
        return rng.choice(values), "root"
    path, node = [], doc
    while True:
        keys = list(node.keys()) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            break
        k = rng.choice(keys)
        child = node[k]
        if isinstance(child, (dict, list)) and child and rng.random() < 0.6:
            path.append(k)
            node = child
            continue
        op = rng.choice(("value", "value", "value", "delete", "add", "rename") if isinstance(node, dict)
                        else ("value", "value", "delete", "add"))
        if op == "value":
            node[k] = rng.choice(values) if rng.random() < 0.8 else scaled(rng, child)
        elif op == "delete":
            del node[k]
        elif op == "add":
            if isinstance(node, dict):
                node[rng.choice(["unknown_key", "extra", str(k) + "x", "kernel", "more_launches"])] = rng.choice(values)
            else:
                node.insert(rng.randrange(len(node) + 1), rng.choice(values))
        else:
            node[f"{k}_renamed"] = node.pop(k)
        return doc, f"{op} {'.'.join(map(str, [*path, k]))}"
    return doc, "none"


def scaled(rng: random.Random, v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return v
    # the list is built whole before the choice, so guarding int(inf) keeps every other input unchanged
    big = v if isinstance(v, float) and not math.isfinite(v) else int(v) * 10**12
    half = v // 2 if isinstance(v, int) and abs(v) > 2**1000 else v * 0.5     # no float for a huge int
    return rng.choice([v * 2**rng.randrange(1, 40), -v, v + 1, v - 1, half, big])


def mutate_text(rng: random.Random, text: str) -> tuple[str, str]:
    """A text-level edit of a YAML / JSON / listing file."""
    op = rng.choice(("truncate", "garbage", "delete-line", "duplicate-line", "empty", "flip", "indent"))
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    if op == "truncate":
        text = text[:rng.randrange(len(text) + 1)]
    elif op == "garbage":
        pos = rng.randrange(len(text) + 1)
        text = text[:pos] + rng.choice(["\x00\xff", "}{][", ": : :", "\t", "&a [*a, *a]", "!!python/object:os.system",
                                        "'unterminated", "\udcfe"]) + text[pos:]
    elif op == "delete-line":
        del lines[i]
        text = "\n".join(lines)
    elif op == "duplicate-line":
        lines.insert(i, lines[i])
        text = "\n".join(lines)
    elif op == "empty":
        text = rng.choice(["", "\n", "null", "[]", "{}", "0"])
    elif op == "flip" and text:
        pos = rng.randrange(len(text))
        text = text[:pos] + chr((ord(text[pos]) ^ (1 << rng.randrange(7))) or 1) + text[pos + 1:]
    elif op == "indent":
        lines[i] = rng.choice(["  ", "\t", ""]) + lines[i].lstrip()
        text = "\n".join(lines)
    return text, "text-" + op


def encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text


def dump_yaml(doc) -> str:
    try:
        return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)
    except yaml.YAMLError:
        return json.dumps(doc, default=str)


def random_spec(rng: random.Random, name: str, good_size: int) -> str:
    dtype = rng.choice(DTYPES[:10]) if rng.random() < 0.7 else rng.choice(DTYPES)
    size = str(good_size) if rng.random() < 0.6 else rng.choice(SIZES)
    spec = f"{name}={dtype}[{size}]"
    if rng.random() < 0.7:
        spec += ":" + rng.choice(INITS)
    if rng.random() < 0.1:
        spec = rng.choice([spec.replace("=", ""), spec.replace("[", ""), spec + ":", "=" + spec, spec * 2])
    return spec


# ---- case generation -----------------------------------------------------------------------------

def make_case(seed: int, index: int, seeds: Seeds, categories: tuple[str, ...]) -> Case:
    rng = random.Random(seed * 1_000_003 + index)
    cat = categories[index % len(categories)]
    limits = [a for s in LIMITS for a in ("--set", s)]
    if cat == "ptx":
        path = rng.choice(seeds.ptx)
        text, what = mutate_ptx(rng, path.read_text(errors="surrogateescape"), seeds,
                                [rng.choice(seeds.ptx).read_text(errors="surrogateescape")])
        prog = next((d for d in seeds.programs if d / "kernel.ptx" == path), None)
        if prog is not None and rng.random() < 0.8:
            files = program_files(prog)
            files["kernel.ptx"] = encode(text)
            isa = "ptx" if rng.random() < 0.85 else "sass"
            if rng.random() < 0.5:
                return Case(index, cat, prog.name, files, ("api_run", ".", True, isa, LIMITS, None), "kernel.ptx", what)
            return Case(index, cat, prog.name, files, ("cli", ["run", ".", "--functional", "--isa", isa, *limits]),
                        "kernel.ptx", what)
        isa = "ptx" if rng.random() < 0.9 else "sass"
        action = ("api_load", "kernel.ptx", None, isa) if rng.random() < 0.7 else \
            ("cli", ["disasm", "kernel.ptx", *(["--isa", "sass"] if isa == "sass" else [])])
        return Case(index, cat, str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path),
                    {"kernel.ptx": encode(text)}, action, "kernel.ptx", what)
    if cat == "manifest":
        prog = rng.choice(seeds.programs)
        files = program_files(prog)
        text = files["manifest.yaml"].decode()
        if rng.random() < 0.75:
            doc, what = mutate_tree(rng, yaml.safe_load(text))
            if rng.random() < 0.3:
                doc, more = mutate_tree(rng, doc)
                what += "; " + more
            text = dump_yaml(doc)
        else:
            text, what = mutate_text(rng, text)
        files["manifest.yaml"] = encode(text)
        if rng.random() < 0.5:
            return Case(index, cat, prog.name, files, ("api_run", ".", True, "ptx", LIMITS, None), "manifest.yaml", what)
        return Case(index, cat, prog.name, files, ("cli", ["run", ".", "--functional", "--isa", "ptx", *limits]),
                    "manifest.yaml", what)
    if cat == "config":
        prog = rng.choice(seeds.programs[:40])
        cfg = rng.choice(seeds.configs)
        text = cfg.read_text()
        if rng.random() < 0.8:
            doc, what = mutate_tree(rng, yaml.safe_load(text))
            text = dump_yaml(doc)
        else:
            text, what = mutate_text(rng, text)
        files = program_files(prog)
        files["fuzz-config.yaml"] = encode(text)
        functional = rng.random() < 0.7
        if rng.random() < 0.5:
            return Case(index, cat, f"{prog.name}+{cfg.stem}", files,
                        ("api_run", ".", functional, "ptx", LIMITS, "fuzz-config.yaml"), "fuzz-config.yaml", what)
        return Case(index, cat, f"{prog.name}+{cfg.stem}", files,
                    ("cli", ["run", ".", "--config", "fuzz-config.yaml", "--isa", "ptx", *limits,
                             *(["--functional"] if functional else [])]), "fuzz-config.yaml", what)
    if cat == "set":
        prog = rng.choice(seeds.programs[:40])
        argv = ["run", ".", "--isa", "ptx", *limits]
        sets = []
        for _ in range(rng.choice((1, 1, 2))):
            key = rng.choice(seeds.config_keys) if seeds.config_keys and rng.random() < 0.9 else \
                rng.choice(["a..b", ".x", "x.", "limits", "", "scheduler", "latency_overrides.sqrt.f32", "num_sms.x"])
            value = rng.choice(SET_VALUES)
            sets.append(f"{key}={value}" if rng.random() < 0.95 else rng.choice([key, f"={value}", f"{key}=={value}"]))
        for s in sets:
            argv += ["--set", s]
        if rng.random() < 0.6:
            argv.append("--functional")
        return Case(index, cat, prog.name, program_files(prog), ("cli", argv), None, " ".join(sets))
    if cat == "buffer":
        ptx = ROOT / "tests/cuda/vec_add_int.ptx"
        n = rng.choice([32, 64, 100])
        specs = [random_spec(rng, name, n) if rng.random() < 0.5 else f"{name}=i32[{n}]:range"
                 for name in ("a", "b", "c")]
        args = ["a", "b", "c", str(n)]
        if rng.random() < 0.3:
            args[rng.randrange(4)] = rng.choice(["d", "", "1e9", "-1", "2147483648", "99999999999999999999", "a.b",
                                                 "3.5", "0x10", "nan"])
        argv = ["run", "vec_add_int.ptx", "--grid", rng.choice(["1", "2", "1,1,1", "0", "-1", "2147483648", "x"]),
                "--block", rng.choice(["32", "64", "1024", "1025", "0", "32,2", "32,32,2"]),
                *[a for s in specs for a in ("--buffer", s)], "--args", ",".join(args), "--functional", *limits]
        files = {"vec_add_int.ptx": ptx.read_bytes()}
        if rng.random() < 0.2:
            files["a.npy"] = rng.choice([b"", b"\x93NUMPY garbage", (ROOT / "programs/sass-diff/s-control/a.npy").read_bytes()])
        return Case(index, cat, "vec_add_int", files, ("cli", argv), None, " ".join(specs))
    if cat == "reference":
        ref = rng.choice(seeds.references)
        text = ref.read_text()
        if rng.random() < 0.7:
            doc, what = mutate_tree(rng, json.loads(text))
            text = json.dumps(doc, indent=1, default=str)
        else:
            text, what = mutate_text(rng, text)
        name = ref.name
        return Case(index, cat, f"{ref.parent.parent.name}/{name}", {f"reference/{name}": encode(text)},
                    ("reference", f"reference/{name}"), f"reference/{name}", what)
    if cat == "sass":
        prog = rng.choice(seeds.cubin_programs)
        return Case(index, cat, prog.name, program_files(prog),
                    ("sass_listing", rng.randrange(2**31)), None, "listing")
    if cat == "cubin":
        prog = rng.choice(seeds.cubin_programs)
        files = program_files(prog)
        data = bytearray(files["kernel.sm_90.cubin"])
        op = rng.choice(("flip", "flip", "truncate", "zero", "garbage"))
        if op == "flip":
            for _ in range(rng.choice((1, 2, 8))):
                pos = rng.randrange(len(data))
                data[pos] ^= 1 << rng.randrange(8)
        elif op == "truncate":
            data = data[:rng.randrange(len(data))]
        elif op == "zero":
            pos = rng.randrange(len(data))
            data[pos:pos + rng.choice((4, 16, 64))] = bytes(len(data[pos:pos + 64]))[:len(data[pos:pos + rng.choice((4, 16, 64))])]
        else:
            pos = rng.randrange(len(data))
            data[pos:pos + 8] = bytes(rng.randrange(256) for _ in range(8))
        files["kernel.sm_90.cubin"] = bytes(data)
        if rng.random() < 0.7:                 # read, disassembled and lowered (the SASS front end)
            return Case(index, cat, prog.name, files, ("api_load", ".", None, "sass"), None, f"cubin-{op}")
        return Case(index, cat, prog.name, files, ("api_run", ".", True, "sass", LIMITS, None), None, f"cubin-{op}")
    raise ValueError(cat)


# ---- running one case (in a worker) -----------------------------------------------------------------

def mutate_listing(rng: random.Random, js: str, hx: str) -> tuple[str, str]:
    """Edits of nvdisasm's JSON listing (an instruction's opcode or operands) or hex listing."""
    if rng.random() < 0.75:
        try:
            doc = json.loads(js)
        except ValueError:
            return js, hx
        insts = []

        def collect(node):
            if isinstance(node, dict):
                if "opcode" in node:
                    insts.append(node)
                for v in node.values():
                    collect(v)
            elif isinstance(node, list):
                for v in node:
                    collect(v)
        collect(doc)
        if insts:
            inst = rng.choice(insts)
            choice = rng.random()
            if choice < 0.3:                          # another opcode, or other modifiers
                words = inst["opcode"].split(".") if isinstance(inst.get("opcode"), str) else ["NOP"]
                if rng.random() < 0.5:
                    words = rng.choice(SASS_OPCODES).split(".")
                else:
                    words[rng.randrange(len(words))] = rng.choice(["X", "U32", "64", "S16", "SAT", "FTZ", "BOGUS", ""])
                inst["opcode"] = ".".join(words)
            elif choice < 0.8:                        # an operand replaced, removed or added
                ops = str(inst.get("operands", "")).split(",")
                j = rng.randrange(len(ops))
                kind = rng.random()
                if kind < 0.3 and len(ops) > 1:
                    del ops[j]
                elif kind < 0.8:
                    ops[j] = rng.choice(["R255", "R300", "R253", "UR99", "UR63", "P9", "PT", "!PT", "RZ", "URZ",
                                         "c[0x9][0xffff]", "c[0x0][0x10000]", "0xffffffffffffffff", "-0x1", "0x1p3",
                                         "[R2.64+0x1000000000]", "desc[UR4][R2.64]", "[R2+-0x8]", "SR_BOGUS", "",
                                         "R2.X9", "-|R3|", "~R4", "R4.reuse", "32@lo(nowhere)", "`(.L_x_99)"])
                else:
                    ops.insert(j, rng.choice(["R1", "0x10", "PT", "!P0", "UR4"]))
                inst["operands"] = ",".join(ops)
            elif choice < 0.9:
                inst["predicate"] = rng.choice(["@P0", "@!P7", "@PT", "@P9", "@UP0", "@!UP7", "@R1", "@"])
            else:                                     # a value of the wrong type
                inst[rng.choice(["opcode", "operands", "predicate", "other-attributes"])] = rng.choice(VALUES)
        return json.dumps(doc), hx
    text, _ = mutate_text(rng, hx)
    return js, text


def run_action(case: Case, workdir: Path) -> None:
    """Run a case's action in `workdir` (its files already written); raise what it raises."""
    kind, *a = case.action
    if kind == "cli":
        from simt_sim.cli.main import main
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main(list(a[0]))
            except SystemExit as e:            # argparse's usage errors
                rc = e.code if isinstance(e.code, int) else 2
        text = err.getvalue()
        if rc not in (0, 1, 2, 3, 130) or (rc == 2 and "error" not in text):
            raise BadExit(f"exit {rc}: {text[-300:]}")
        if rc == 2:
            raise CleanExit(2, text)
        if rc == 3:
            raise CleanExit(3, text)
        return
    import simt_sim
    if kind == "api_run":
        directory, functional, isa, overrides, config = a
        simt_sim.run_program(directory, functional=functional, isa=isa, overrides=overrides, config=config)
    elif kind == "api_load":
        path, kernel, isa = a
        simt_sim.load_program(path, kernel, isa)
    elif kind == "reference":
        from simt_sim.calibrate.compare import compare_outputs, recorded_array
        from simt_sim.calibrate.reference import load_reference
        ref = load_reference(a[0])
        if "outputs" in ref:
            for rec in ref["outputs"].values():
                if "hex" in rec:
                    arr = recorded_array(rec)
                    compare_outputs({"x": arr.copy()}, {"x": rec}, True)
        if "mask_trace" in ref:
            {int(w): [tuple(e) for e in entries] for w, entries in ref["mask_trace"].items()}
    elif kind == "sass_listing":
        run_sass_listing(a[0])
    elif kind == "selftest":                   # the harness's own tests (tests/test_fuzz.py)
        what = a[0]
        if what == "marker" and b"BOOM" in Path(case.main_file).read_bytes():
            raise ZeroDivisionError("the marker line is there")
        if what == "sleep":
            time.sleep(3600)
        if what == "signal":
            import signal
            os.kill(os.getpid(), signal.SIGSEGV)
        if what == "allocate":
            bytearray(1 << 40)
    else:
        raise ValueError(kind)


class CleanExit(Exception):
    def __init__(self, code: int, text: str):
        super().__init__(text)
        self.code = code


class BadExit(Exception):
    pass


def run_sass_listing(seed: int) -> None:
    """The program's committed cubin's nvdisasm listings, mutated, parsed and lowered as
    load_sass_program does, then run functionally on the manifest's launch."""
    from simt_sim.frontend import sass as S
    js, hx = S.nvdisasm_listings(Path("kernel.sm_90.cubin"))
    run_listing(*mutate_listing(random.Random(seed), js, hx))


def lower_listing(js: str, hx: str, directory: Path = Path(".")):
    """(program, manifest): the program in `directory` lowered from these nvdisasm listings (-json,
    -hex) of its committed cubin, as load_sass_program lowers ptxas's; program None when the
    listing has no function of the kernel's name."""
    from dataclasses import replace
    from simt_sim.frontend import sass as S
    from simt_sim.frontend.assembler import load_program
    from simt_sim.frontend.cubin_elf import read_cubin
    from simt_sim.frontend.manifest import load_manifest
    from simt_sim.frontend.sass_banks import globals_from_cubin, lay_out_banks
    from simt_sim.frontend.sass_lower import bank0_offsets, lower_kernel
    from simt_sim.isa import encoding as E
    m = load_manifest(str(directory))
    cubin = directory / "kernel.sm_90.cubin"
    structured, encoded, labels = S.parse_json_listing(js), S.parse_hex_listing(hx), S.parse_labels(hx)
    kernels = {name: S.build_kernel(name, insts, encoded.get(name, []), labels.get(name))
               for name, insts in structured.items()}
    kernels = {k.name: k for k in (S.link_functions(k, kernels) for k in kernels.values())}
    ptx_program = load_program(str(m.kernel_file), m.kernel)
    if ptx_program.name not in kernels:
        return None, m
    elf = read_cubin(cubin)
    sk = kernels[ptx_program.name]
    addresses = {v.name: E.GLOBAL_BASE + v.offset for v in ptx_program.globals}
    banks = lay_out_banks(elf, ptx_program.name, ptx_program.param_size, addresses, bank0_offsets(sk))
    ptx_program = replace(ptx_program, globals=globals_from_cubin(ptx_program.globals, elf))
    return lower_kernel(sk, ptx_program, f"listing:{ptx_program.name}", banks,
                        max(elf.register_counts().values(), default=0)), m


def run_listing(js: str, hx: str, directory: Path = Path(".")):
    """lower_listing's program run functionally on the manifest's launch (its RunResult), or None."""
    from simt_sim.machine.config import load_config
    from simt_sim.run.functional import launch
    prog, m = lower_listing(js, hx, directory)
    if prog is None:
        return None
    cfg = load_config(m.config, [*m.overrides, *LIMITS])
    bufs = {s.name: s.make() for s in m.buffers}
    return launch(prog, m.grid, m.block, list(m.args), bufs, cfg.launch_config(), dynamic_shared=m.dynamic_shared)


def classify(case: Case, workdir: Path) -> dict:
    """Run the case in this process; the outcome record."""
    from simt_sim.errors import InputError, RuntimeFault, SimError
    t0 = time.perf_counter()
    rec = {"index": case.index, "category": case.category, "outcome": "ok", "located": False}
    try:
        run_action(case, workdir)
    except CleanExit as e:
        rec["outcome"] = "input" if e.code == 2 else "fault"
        rec["located"] = bool(re.search(r":\d+:\d+: error", str(e)))
    except BadExit as e:
        rec.update(outcome="bad-exit", exc="BadExit", frame="simt_sim/cli/main.py", message=str(e)[:500])
    except InputError as e:
        rec["outcome"] = "input"
        rec["located"] = e.loc is not None or bool(re.search(r":\d+:\d+: error", str(e)))
    except RuntimeFault:
        rec["outcome"] = "fault"
    except SimError:
        rec["outcome"] = "ok"                  # e.g. a mismatch error class with exit 1
    except MemoryError as e:
        rec.update(outcome="memory", exc="MemoryError", frame=innermost(e), message=str(e)[:300],
                   traceback=traceback.format_exc()[-4000:])
    except RecursionError as e:
        rec.update(outcome="traceback", exc="RecursionError", frame=innermost(e), message=str(e)[:300],
                   traceback=traceback.format_exc()[-4000:])
    except BaseException as e:                 # noqa: BLE001 - everything else is a finding
        if isinstance(e, KeyboardInterrupt):
            raise
        rec.update(outcome="traceback", exc=type(e).__name__, frame=innermost(e), message=str(e)[:300],
                   traceback=traceback.format_exc()[-4000:])
    rec["seconds"] = round(time.perf_counter() - t0, 3)
    return rec


def innermost(e: BaseException) -> str:
    """The innermost frame of the traceback inside simt_sim (else the innermost one)."""
    frames = traceback.extract_tb(e.__traceback__)
    ours = [f for f in frames if "/simt_sim/" in f.filename.replace("\\", "/")]
    f = (ours or frames or [None])[-1]
    if f is None:
        return "?"
    name = f.filename.replace("\\", "/")
    name = name[name.rfind("/simt_sim/") + 1:] if "/simt_sim/" in name else os.path.basename(name)
    return f"{name}:{f.lineno} {f.name}"


def run_subprocess(case: Case, workdir: Path, timeout: float, mem_bytes: int, jit: bool) -> dict:
    """A CLI case through a real `python -m simt_sim` process (memory cap, timeout, signals)."""
    env = dict(os.environ)
    if not jit:
        env["NUMBA_DISABLE_JIT"] = "1"
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")

    def cap():
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (mem_bytes, mem_bytes))
    rec = {"index": case.index, "category": case.category, "outcome": "ok", "located": False, "subprocess": True}
    t0 = time.perf_counter()
    # a session of its own, so a timeout kills the run together with the tools it started
    with subprocess.Popen([sys.executable, "-m", "simt_sim", *case.action[1]], cwd=workdir, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace",
                          preexec_fn=cap, start_new_session=True) as proc:
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            rec.update(outcome="timeout", exc="Timeout", frame=f"{case.category} (subprocess)")
            return rec
    r = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    err = r.stderr
    if r.returncode < 0:
        rec.update(outcome="crash", exc=f"signal {-r.returncode}", frame=case.category, message=err[-300:])
    elif "Traceback (most recent call last)" in err:
        last = err.strip().splitlines()[-1]
        frames = re.findall(r'File "([^"]+)", line (\d+), in (\S+)', err)
        ours = [f for f in frames if "/simt_sim/" in f[0]] or frames
        frame = ours[-1] if ours else ("?", "?", "?")
        fname = frame[0][frame[0].rfind("/simt_sim/") + 1:] if "/simt_sim/" in frame[0] else os.path.basename(frame[0])
        exc = last.split(":")[0]
        rec.update(outcome="memory" if exc == "MemoryError" else "traceback", exc=exc,
                   frame=f"{fname}:{frame[1]} {frame[2]}", message=last[:300], traceback=err[-4000:])
    elif r.returncode in (0, 1, 130):
        pass
    elif r.returncode == 2 and "error" in err:
        rec.update(outcome="input", located=bool(re.search(r":\d+:\d+: error", err)))
    elif r.returncode == 3:
        rec["outcome"] = "fault"
    else:
        rec.update(outcome="bad-exit", exc=f"exit {r.returncode}", frame=case.category, message=err[-300:])
    rec["seconds"] = round(time.perf_counter() - t0, 3)
    return rec


def write_files(case: Case, workdir: Path) -> None:
    for name, data in case.files.items():
        p = workdir / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)


def worker_main(conn, mem_bytes: int, jit: bool) -> None:
    """A worker: capped memory, then runs the cases it receives, one at a time, each in a fresh
    directory."""
    import resource
    # a process group of its own: killing the worker (timeout, restart, Ctrl-C) then also kills the
    # nvdisasm/ptxas/python children it started, instead of leaving them running as orphans
    os.setpgrp()
    if not jit:
        os.environ["NUMBA_DISABLE_JIT"] = "1"
    if mem_bytes:
        resource.setrlimit(resource.RLIMIT_AS, (mem_bytes, mem_bytes))
    sys.path.insert(0, str(ROOT))
    import warnings
    warnings.simplefilter("ignore")
    import simt_sim  # noqa: F401  (imported once, before the first case)
    start = os.getcwd()
    while True:
        try:
            case = conn.recv()
        except EOFError:
            return
        if case is None:
            return
        with tempfile.TemporaryDirectory(prefix="simt-fuzz-") as tmp:
            workdir = Path(tmp)
            write_files(case, workdir)
            if getattr(case, "subprocess", None):       # (timeout, memory, jit) of a real process
                rec = run_subprocess(case, workdir, *case.subprocess)
            else:
                os.chdir(workdir)
                try:
                    rec = classify(case, workdir)
                finally:
                    os.chdir(start)
        conn.send(rec)


class Worker:
    def __init__(self, ctx, mem_bytes: int, jit: bool):
        self.ctx, self.mem_bytes, self.jit = ctx, mem_bytes, jit
        self.start()

    def start(self):
        self.conn, child = self.ctx.Pipe()
        self.proc = self.ctx.Process(target=worker_main, args=(child, self.mem_bytes, self.jit), daemon=True)
        self.proc.start()
        child.close()
        self.case = None
        self.deadline = None

    def submit(self, case: Case, timeout: float, startup: float = 0.0):
        self.case = case
        self.deadline = time.monotonic() + timeout + startup
        self.conn.send(case)

    def kill(self):
        """The worker and every process it started (its process group)."""
        with contextlib.suppress(Exception):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            self.proc.kill()

    def restart(self):
        self.kill()
        self.proc.join(5)
        self.start()

    def stop(self):
        with contextlib.suppress(Exception):
            self.conn.send(None)
        self.proc.join(2)
        if self.proc.is_alive():
            self.kill()
        else:                               # children a finished worker left behind
            with contextlib.suppress(Exception):
                os.killpg(self.proc.pid, signal.SIGKILL)


def run_cases(cases: list[Case], workers: int, timeout: float, mem_bytes: int, jit: bool,
              subprocess_every: int = 0, progress=None, on_record=None) -> list[dict]:
    """Every case run in a pool of worker processes (or subprocesses); the records in case order
    (on Ctrl-C: those finished so far).  on_record(case, record) is called as each one ends."""
    ctx = multiprocessing.get_context("spawn")
    pool = [Worker(ctx, mem_bytes, jit) for _ in range(max(1, workers))]
    fresh = {id(w): True for w in pool}
    startup = 120.0                              # a worker's first case also imports simt_sim
    pending = list(reversed(cases))
    results: dict[int, dict] = {}
    for c in cases:            # these run as `python -m simt_sim` processes, started by the workers
        if subprocess_every and c.action[0] == "cli" and c.index % subprocess_every == 0:
            c.subprocess = (timeout, mem_bytes, jit)
    try:
        while pending or any(w.case for w in pool):
            for w in pool:
                if w.case is None and pending:
                    case = pending.pop()
                    w.submit(case, timeout + (30.0 if getattr(case, "subprocess", None) else 0.0),
                             startup if fresh[id(w)] else 0.0)
            busy = [w for w in pool if w.case is not None]
            ready = wait([w.conn for w in busy] + [w.proc.sentinel for w in busy], timeout=1.0)
            now = time.monotonic()
            for w in busy:
                case = w.case
                rec = None
                if w.conn in ready:
                    try:
                        rec = w.conn.recv()
                        fresh[id(w)] = False
                    except (EOFError, OSError):
                        rec = None
                if rec is None and (w.proc.sentinel in ready or not w.proc.is_alive()):
                    code = w.proc.exitcode
                    rec = {"index": case.index, "category": case.category, "located": False,
                           "outcome": "crash",
                           "exc": f"signal {-code}" if code is not None and code < 0 else f"worker exit {code}",
                           "frame": case.category}
                    w.restart()
                    fresh[id(w)] = True
                elif rec is None and now > w.deadline:
                    rec = {"index": case.index, "category": case.category, "located": False, "outcome": "timeout",
                           "exc": "Timeout", "frame": f"{case.category}: {case.action[0]}"}
                    w.restart()
                    fresh[id(w)] = True
                if rec is not None:
                    w.case = None
                    results[case.index] = rec
                    if on_record:
                        on_record(case, rec)
                    if progress:
                        progress(len(results), len(cases))
    except KeyboardInterrupt:
        print("\ninterrupted: the inputs finished so far are reported", file=sys.stderr)
    finally:
        for w in pool:
            w.stop()
    return [results[c.index] for c in cases if c.index in results]


# ---- findings, reduction, report ---------------------------------------------------------------------

def finding_key(rec: dict) -> tuple:
    return (rec["outcome"], rec.get("exc"), rec.get("frame"))


def reduce_case(case: Case, key: tuple, timeout: float, mem_bytes: int, jit: bool, budget: int = 40) -> Case:
    """Delta reduction of the case's main file, line by line in halving chunks: the smallest file
    that still gives the same finding key (within `budget` runs)."""
    if not case.main_file or key[0] == "timeout":
        return case
    lines = case.files[case.main_file].split(b"\n")
    runs = 0
    ctx = multiprocessing.get_context("spawn")
    w = Worker(ctx, mem_bytes, jit)
    first = True
    try:
        chunk = max(1, len(lines) // 2)
        while chunk >= 1 and runs < budget:
            i, changed = 0, False
            while i < len(lines) and runs < budget:
                trial = lines[:i] + lines[i + chunk:]
                files = dict(case.files)
                files[case.main_file] = b"\n".join(trial)
                c = Case(case.index, case.category, case.seed, files, case.action, case.main_file, case.note)
                w.submit(c, timeout, 120.0 if first else 0.0)
                first = False
                rec = None
                if w.conn.poll(w.deadline - time.monotonic()):
                    with contextlib.suppress(EOFError, OSError):
                        rec = w.conn.recv()
                if rec is None:
                    w.restart()
                    first = True
                w.case = None
                runs += 1
                if rec is not None and finding_key(rec) == key:
                    lines, changed = trial, True
                else:
                    i += chunk
            if not changed:
                chunk //= 2
    finally:
        w.stop()
    files = dict(case.files)
    files[case.main_file] = b"\n".join(lines)
    return Case(case.index, case.category, case.seed, files, case.action, case.main_file, case.note)


def save_finding(out: Path, n: int, case: Case, rec: dict) -> Path:
    d = out / f"{n:02d}-{rec['outcome']}-{case.category}"
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    write_files(case, d)
    (d / "command.txt").write_text(
        f"# input {case.index} ({case.category}, seed {case.seed}: {case.note})\n"
        f"# run in this directory:\n{case.command()}\n")
    (d / "finding.json").write_text(json.dumps({k: v for k, v in rec.items() if k != "traceback"}, indent=1) + "\n")
    if rec.get("traceback"):
        (d / "traceback.txt").write_text(rec["traceback"])
    return d


OUTCOMES = ("ok", "input", "fault", "traceback", "timeout", "memory", "crash", "bad-exit")


def table(cases: list[Case], recs: list[dict]) -> str:
    by = collections.defaultdict(collections.Counter)
    keys = collections.defaultdict(set)
    located = collections.Counter()
    for c, r in zip(cases, recs):
        by[c.category][r["outcome"]] += 1
        if r["outcome"] in FINDING_OUTCOMES:
            keys[c.category].add(finding_key(r))
        if r.get("located"):
            located[c.category] += 1
    head = f"| category | runs | {' | '.join(OUTCOMES)} | located errors | distinct findings |"
    lines = [head, "|" + "---|" * (len(OUTCOMES) + 4)]
    cats = [c for c in CATEGORIES if c in by]
    for cat in [*cats, "total"]:
        cnt = sum(by.values(), collections.Counter()) if cat == "total" else by[cat]
        loc = sum(located.values()) if cat == "total" else located[cat]
        distinct = len(set().union(*keys.values())) if cat == "total" else len(keys[cat])
        lines.append(f"| {cat} | {sum(cnt.values())} | " + " | ".join(str(cnt[o]) for o in OUTCOMES)
                     + f" | {loc} | {distinct} |")
    return "\n".join(lines)


def record_line(case: Case, rec: dict, seed: int) -> dict:
    return {**{k: v for k, v in rec.items() if k != "traceback"}, "seed": seed, "seed_input": case.seed,
            "note": case.note}


def read_earlier_records(path: Path, seed: int, start: int, inputs: int) -> dict:
    """{index: record} of an earlier run's records inside [start, start + inputs)."""
    path = Path(path)
    if path.is_dir():
        path = path / "records.jsonl" if (path / "records.jsonl").exists() else path / "records.partial.jsonl"
    found = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:     # the last line of a run killed while writing it
                continue
            if rec.get("seed", seed) != seed:
                raise SystemExit(f"{path}:{n}: a record of seed {rec['seed']}, not {seed}")
            if start <= rec["index"] < start + inputs:
                found[rec["index"]] = rec
    return found


def simulator_version() -> str:
    """The commit the simulator ran at (with '+changes' when the tree differs), for provenance."""
    try:
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return (head or "unknown") + ("+changes" if dirty else "")


def fuzz(inputs: int, seed: int = 0, workers: int = 2, categories=CATEGORIES, timeout: float = 30.0,
         mem_mb: int = 3072, jit: bool = False, out: Path | None = None, reduce: bool = True,
         subprocess_every: int = 0, start: int = 0, quiet: bool = True, corpus_dir: Path | None = None,
         generate: int = 0, resume: Path | None = None) -> dict:
    """Generate and run `inputs` cases; returns {"table", "records", "findings"}.  With `resume`, the
    records of an earlier run of the same seed (its records.jsonl, or records.partial.jsonl when it was
    cut short) count as done: only the other inputs run, and the summary covers all of them."""
    seeds = find_seeds(corpus_dir, generate)
    categories = tuple(c for c in categories if c not in ("sass", "cubin") or seeds.cubin_programs)
    earlier = read_earlier_records(resume, seed, start, inputs) if resume else {}
    cases = [make_case(seed, i, seeds, categories) for i in range(start, start + inputs)]
    all_cases = cases
    cases = [c for c in cases if c.index not in earlier]
    t0 = time.time()

    def progress(done, total):
        if not quiet and (done % 50 == 0 or done == total):
            print(f"\r{done}/{total} inputs, {time.time() - t0:.0f} s", end="", file=sys.stderr, flush=True)
    mem = mem_mb << 20
    log = None
    if out:                     # records as they come: a run cut short keeps what it did
        out.mkdir(parents=True, exist_ok=True)
        log = open(out / "records.partial.jsonl", "w")
        for rec in earlier.values():        # a resumed run cut short again still holds everything done
            log.write(json.dumps(rec) + "\n")

    def on_record(case, rec):
        log.write(json.dumps(record_line(case, rec, seed)) + "\n")
        log.flush()
    try:
        recs = run_cases(cases, workers, timeout, mem, jit, subprocess_every, progress, on_record if log else None)
    finally:
        if log:
            log.close()
    recs = sorted([*earlier.values(), *recs], key=lambda r: r["index"])
    done = {r["index"] for r in recs}
    interrupted = len(recs) < len(all_cases)
    cases = [c for c in all_cases if c.index in done]
    if not quiet:
        print(file=sys.stderr)
    # a timeout on a loaded machine may be slowness: run it again alone with 3x the time
    for i, (c, r) in enumerate(zip(cases, recs)):
        if r["outcome"] == "timeout":
            again = run_cases([c], 1, 3 * timeout, mem, jit)[0]
            if again["outcome"] != "timeout":
                recs[i] = {**again, "slow": True}
    findings = {}
    for c, r in zip(cases, recs):
        if r["outcome"] in FINDING_OUTCOMES:
            findings.setdefault(finding_key(r), (c, r, []))[2].append(c.index)
    saved = []
    for n, (key, (case, rec, indices)) in enumerate(sorted(findings.items(), key=lambda kv: kv[1][0].index)):
        small_case = reduce_case(case, key, timeout, mem, jit) if reduce and out else case
        entry = {"key": list(key), "count": len(indices), "first": case.index, "category": case.category,
                 "message": rec.get("message", "")}
        if out:
            entry["reproducer"] = str(save_finding(out, n, small_case, {**rec, "count": len(indices)}))
        saved.append(entry)
    doc = {"inputs": len(cases), "asked": inputs, "interrupted": interrupted, "seed": seed, "start": start,
           "resumed": len(earlier), "simulator": simulator_version(), "workers": workers, "timeout_s": timeout,
           "memory_cap_mb": mem_mb, "jit": jit, "seconds": round(time.time() - t0, 1),
           "table": table(cases, recs), "findings": saved}
    if out:
        out.mkdir(parents=True, exist_ok=True)
        (out / "summary.json").write_text(json.dumps(doc, indent=1) + "\n")
        with open(out / "records.jsonl", "w") as f:
            for c, r in zip(cases, recs):
                f.write(json.dumps(record_line(c, r, seed)) + "\n")
    doc["records"] = recs
    return doc


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python tools/fuzz.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--inputs", type=int, default=300, help="how many inputs (default 300)")
    p.add_argument("--seed", type=int, default=0, help="generator seed (input i of seed S is always the same)")
    p.add_argument("--start", type=int, default=0, help="first input index (to split a run)")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="worker processes (default: one per core)")
    p.add_argument("--categories", default=",".join(CATEGORIES), help="comma separated: " + ", ".join(CATEGORIES))
    p.add_argument("--timeout", type=float, default=30.0, help="seconds per input (default 30)")
    p.add_argument("--memory-mb", type=int, default=3072, help="address-space cap per worker (default 3072)")
    p.add_argument("--jit", action="store_true", help="run the numba-compiled engine (default: NUMBA_DISABLE_JIT=1)")
    p.add_argument("--subprocess-every", type=int, default=0, metavar="N",
                   help="run every Nth CLI input as a real `python -m simt_sim` process (default 0: none)")
    p.add_argument("--corpus-dir", type=Path, metavar="DIR",
                   help="also the kernels' PTX of a recorded generated corpus (DIR/m*/k*.ptx, e.g. /tmp/simt-sim-corpus)")
    p.add_argument("--generate-corpus", type=int, default=0, metavar="N",
                   help="also N generated-corpus modules (corpus_gen.py, compiled once by nvcc -ptx)")
    p.add_argument("--out", type=Path, default=Path("fuzz-out"), help="summary, records and reproducers (default fuzz-out)")
    p.add_argument("--no-reduce", action="store_true", help="save findings as found, not reduced")
    p.add_argument("--resume", type=Path, metavar="DIR",
                   help="an earlier run's --out (same seed): its finished inputs are not run again, and the "
                        "summary covers them too (a long run split over sessions or cut short)")
    ns = p.parse_args(argv)
    cats = tuple(c.strip() for c in ns.categories.split(",") if c.strip())
    bad = [c for c in cats if c not in CATEGORIES]
    if bad:
        p.error(f"unknown categories {', '.join(bad)} (one of {', '.join(CATEGORIES)})")
    doc = fuzz(ns.inputs, ns.seed, ns.workers, cats, ns.timeout, ns.memory_mb, ns.jit, ns.out, not ns.no_reduce,
               ns.subprocess_every, ns.start, quiet=False, corpus_dir=ns.corpus_dir,
               generate=ns.generate_corpus, resume=ns.resume)
    print(doc["table"])
    print(f"\n{doc['inputs']} inputs{' (interrupted)' if doc['interrupted'] else ''} in {doc['seconds']} s; "
          f"{len(doc['findings'])} distinct findings"
          + (f" (reproducers under {ns.out})" if doc["findings"] else ""))
    for f in doc["findings"]:
        print(f"  {f['count']:>5} x {' / '.join(map(str, f['key']))}: {f['message'][:120]}")
    return 130 if doc["interrupted"] else (1 if doc["findings"] else 0)


if __name__ == "__main__":
    sys.exit(main())
