"""Recorded hardware references (programs/PURPOSE/NAME/reference/*.json), checked as they are read.

Every reader in simt_sim/calibrate goes through `load_reference`: a file that is missing, empty,
not UTF-8, not JSON (truncated, garbage), holds NaN or Infinity anywhere, lacks a key its readers
need, or has a value of the wrong type or shape is an InputError (exit 2) naming the file and the
field, e.g.

    error: programs/examples/data-loop/reference/h100.json: field ncu[1].smsp__inst_executed.sum: expected a number, found str 'x'

instead of a KeyError / TypeError deep inside a comparison, or a NaN that compares as "different".

The kind of reference comes from its file name:

    <gpu>.json                     outputs, mask trace, ncu counters, elapsed time (calibrate/record.py)
    <gpu>-sass-counts.json         per-SASS-instruction counts (calibrate/source_counts.py)
    <gpu>-pc-stalls[-warm].json    PC-sampling stall reasons (calibrate/pc_stalls.py)
    <gpu>-memory[-warm].json       memory sector counters (calibrate/memory_counters.py)
"""
from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np

from simt_sim.errors import InputError, SourceLoc
from simt_sim.isa.table import NCU_PIPES

# ncu metrics a hardware reference's every `ncu` entry must hold (validate reads them all)
NCU_REQUIRED = ("sm__cycles_elapsed.max", "smsp__inst_executed.sum", "smsp__thread_inst_executed_pred_on.sum",
                *(f"sm__inst_executed_pipe_{p}.sum" for p in NCU_PIPES))
# the mask-trace group: written together when the program has a trace variant (record_program)
TRACE_KEYS = ("mask_trace", "trace_count", "trace_clocks", "block_clock_spans")
DTYPES = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
          "float16", "float32", "float64", "bool")


class BadField(Exception):
    """A schema violation at `field` (a dotted / indexed path into the document)."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field
        self.message = message


class _NonFinite:
    """What json's NaN / Infinity / -Infinity become while a reference is parsed (then refused)."""

    def __init__(self, text: str):
        self.text = text


def kind_of(name: str) -> str:
    """The kind of reference a file name says: hardware, sass_counts, pc_stalls or memory."""
    if name.endswith("-sass-counts.json"):
        return "sass_counts"
    if re.search(r"-pc-stalls(-warm)?\.json$", name):
        return "pc_stalls"
    if re.search(r"-memory(-warm)?\.json$", name):
        return "memory"
    if re.fullmatch(r"[A-Za-z0-9_]+\.json", name):
        return "hardware"
    raise ValueError(f"{name}: not a reference kind that simt_sim.calibrate reads")


def load_reference(path, kind: str | None = None) -> dict:
    """The reference at `path`, checked against its kind's schema (InputError naming the file and
    the field otherwise)."""
    path = Path(path)
    doc = parse_reference(path)
    kind = kind or kind_of(path.name)
    try:
        CHECKS[kind](doc)
    except BadField as e:
        raise InputError(f"{path}: field {e.field}: {e.message}") from None
    return doc


def parse_reference(path: Path):
    """The JSON document of a reference file; NaN / Infinity refused with the field that holds them."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: no such reference file") from None
    except OSError as e:
        raise InputError(f"{path}: cannot read the reference ({e.strerror or e})") from None
    if not data or data.isspace():
        raise InputError(f"{path}: the reference file is empty (a damaged recording: record it again)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text (byte {e.start}): a damaged reference") from None
    try:
        doc = json.loads(text, parse_constant=_NonFinite)
    except json.JSONDecodeError as e:
        raise InputError(f"not valid JSON ({e.msg}): the reference is truncated or damaged",
                         SourceLoc(str(path), e.lineno, e.colno)) from None
    except RecursionError:
        raise InputError(f"{path}: nested too deeply to be a reference (damaged)") from None
    where = find_non_finite(doc, "") if ("NaN" in text or "Infinity" in text) else None
    if where is not None:
        field, text = where
        raise InputError(f"{path}: field {field or '(top)'}: {text} is not a recorded value")
    if not isinstance(doc, dict):
        raise InputError(f"{path}: field (top): expected a JSON object, found {type_name(doc)}")
    return doc


def find_non_finite(v, field: str):
    if isinstance(v, _NonFinite):
        return field, v.text
    if isinstance(v, dict):
        for k, x in v.items():
            found = find_non_finite(x, join(field, k))
            if found:
                return found
    elif isinstance(v, list):
        for i, x in enumerate(v):
            found = find_non_finite(x, f"{field}[{i}]")
            if found:
                return found
    return None


def join(field: str, key: str) -> str:
    return f"{field}.{key}" if field else str(key)


def type_name(v) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "an integer",
            float: "a number", type(None): "null"}.get(type(v), type(v).__name__)


def shown(v) -> str:
    text = json.dumps(v) if not isinstance(v, _NonFinite) else v.text
    return text if len(text) <= 40 else text[:37] + "..."


def fail(field: str, expected: str, v) -> None:
    raise BadField(field, f"expected {expected}, found {type_name(v)} {shown(v)}")


# ---- field checks -------------------------------------------------------------------------------

def need(doc: dict, key: str, field: str = ""):
    if key not in doc:
        raise BadField(join(field, key), "missing")
    return doc[key]


def obj(v, field: str) -> dict:
    if not isinstance(v, dict):
        fail(field, "an object", v)
    return v


def lst(v, field: str, length: int | None = None) -> list:
    if not isinstance(v, list):
        fail(field, "a list", v)
    if length is not None and len(v) != length:
        raise BadField(field, f"expected {length} entries, found {len(v)}")
    return v


def string(v, field: str) -> str:
    if not isinstance(v, str):
        fail(field, "a string", v)
    return v


def number(v, field: str, minimum: float | None = None, nullable: bool = False):
    if v is None and nullable:
        return v
    if isinstance(v, bool) or not isinstance(v, (int, float)) or (isinstance(v, float) and not math.isfinite(v)):
        fail(field, "a number" + (" or null" if nullable else ""), v)
    if minimum is not None and v < minimum:
        raise BadField(field, f"expected a number >= {minimum:g}, found {v!r}")
    return v


def integer(v, field: str, minimum: int | None = 0, maximum: int | None = None) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        fail(field, "an integer", v)
    if minimum is not None and v < minimum:
        raise BadField(field, f"expected an integer >= {minimum}, found {v}")
    if maximum is not None and v > maximum:
        raise BadField(field, f"expected an integer <= {maximum}, found {v}")
    return v


def hex_bytes(v, field: str, itemsize: int = 1) -> str:
    string(v, field)
    if len(v) % 2 or not re.fullmatch(r"[0-9a-fA-F]*", v):
        raise BadField(field, "expected hexadecimal bytes (an even number of 0-9 a-f digits)")
    if (len(v) // 2) % itemsize:
        raise BadField(field, f"{len(v) // 2} bytes are not a whole number of {itemsize}-byte elements")
    return v


# ---- the kinds ----------------------------------------------------------------------------------

def check_hardware(doc: dict) -> None:
    string(need(doc, "program"), "program")
    string(need(doc, "kernel"), "kernel")
    obj(need(doc, "provenance"), "provenance")
    for name, rec in obj(need(doc, "outputs"), "outputs").items():
        check_output(rec, f"outputs.{name}")
    for i, entry in enumerate(lst(need(doc, "ncu"), "ncu")):
        check_ncu(entry, f"ncu[{i}]", doc["ncu"][0])
    if "ncu_launches" in doc:
        for i, launch in enumerate(lst(doc["ncu_launches"], "ncu_launches")):
            for j, entry in enumerate(lst(launch, f"ncu_launches[{i}]")):
                check_ncu(entry, f"ncu_launches[{i}][{j}]", entry)
    if "launch_kernels" in doc:
        for i, k in enumerate(lst(doc["launch_kernels"], "launch_kernels")):
            string(k, f"launch_kernels[{i}]")
    if "elapsed" in doc and doc["elapsed"] is not None:
        el = obj(doc["elapsed"], "elapsed")
        cycles = number(need(el, "cycles", "elapsed"), "elapsed.cycles")
        if cycles <= 0:
            raise BadField("elapsed.cycles", f"expected a positive number of cycles, found {cycles!r}")
        for k, v in el.items():
            if k in ("ms_spread",):
                for i, x in enumerate(lst(v, f"elapsed.{k}")):
                    number(x, f"elapsed.{k}[{i}]")
            elif k != "cycles":
                number(v, f"elapsed.{k}", nullable=True)
    if "cubins" in doc:
        for k, v in obj(doc["cubins"], "cubins").items():
            string(v, f"cubins.{k}")
    present = [k for k in TRACE_KEYS if k in doc]
    if present:
        for k in ("mask_trace", "trace_count"):
            need(doc, k)
        integer(doc["trace_count"], "trace_count")
        for w, entries in obj(doc["mask_trace"], "mask_trace").items():
            warp_key(w, "mask_trace")
            if type(entries) is list and all(type(e) is list and len(e) == 2 and type(e[0]) is int and e[0] >= 0
                                             and type(e[1]) is int and 0 <= e[1] < 2**32 for e in entries):
                continue                   # the usual case, checked quickly; else find the field
            for i, e in enumerate(lst(entries, f"mask_trace.{w}")):
                pair = lst(e, f"mask_trace.{w}[{i}]", 2)
                integer(pair[0], f"mask_trace.{w}[{i}][0]")
                integer(pair[1], f"mask_trace.{w}[{i}][1]", 0, 2**32 - 1)
        for name in ("trace_clocks", "block_clock_spans"):
            for w, clocks in obj(doc.get(name, {}), name).items():
                warp_key(w, name)
                if type(clocks) is list and all(type(c) is int for c in clocks) \
                        and (name == "trace_clocks" or len(clocks) == 2):
                    continue
                for i, c in enumerate(lst(clocks, f"{name}.{w}", None if name == "trace_clocks" else 2)):
                    integer(c, f"{name}.{w}[{i}]", None)


def warp_key(key: str, field: str) -> None:
    if not (key.isascii() and key.isdigit()):
        raise BadField(f"{field}.{key}", "expected a warp or block number as the key")


def check_output(rec, field: str) -> None:
    obj(rec, field)
    dtype = string(need(rec, "dtype", field), f"{field}.dtype")
    if dtype not in DTYPES:
        raise BadField(f"{field}.dtype", f"unknown element type {shown(dtype)} (one of {', '.join(DTYPES)})")
    itemsize = np.dtype(dtype).itemsize
    if "sha256" in rec:
        digest = string(rec["sha256"], f"{field}.sha256")
        if not re.fullmatch(r"[0-9a-f]{64}", digest):
            raise BadField(f"{field}.sha256", "expected 64 lowercase hexadecimal digits")
        integer(need(rec, "size", field), f"{field}.size")
        hex_bytes(need(rec, "head_hex", field), f"{field}.head_hex", itemsize)
        if "unchanged" in rec and not isinstance(rec["unchanged"], bool):
            fail(f"{field}.unchanged", "true or false", rec["unchanged"])
    else:
        hex_bytes(need(rec, "hex", field), f"{field}.hex", itemsize)


def check_ncu(entry, field: str, first) -> None:
    obj(entry, field)
    string(need(entry, "kernel", field), f"{field}.kernel")
    for key in NCU_REQUIRED:
        number(need(entry, key, field), f"{field}.{key}", minimum=0)
    for key, v in entry.items():
        if key != "kernel":
            number(v, f"{field}.{key}", nullable=True)
    if isinstance(first, dict):                 # stall reasons are read from the first entry's keys
        for key in first:
            if key.startswith("smsp__average_warps_issue_stalled_"):
                need(entry, key, field)


def check_sass_counts(doc: dict, field: str = "") -> None:
    p = (lambda k: join(field, k))
    string(need(doc, "kernel", field), p("kernel"))
    sass = lst(need(doc, "sass", field), p("sass"))
    for i, t in enumerate(sass):
        string(t, f"{p('sass')}[{i}]")
    counts = lst(need(doc, "counts", field), p("counts"), len(sass))
    for i, c in enumerate(counts):
        for j, n in enumerate(lst(c, f"{p('counts')}[{i}]", 3)):
            integer(n, f"{p('counts')}[{i}][{j}]")
    if not field and "more_launches" in doc:
        for i, launch in enumerate(lst(doc["more_launches"], "more_launches")):
            obj(launch, f"more_launches[{i}]")
            check_sass_counts(launch, f"more_launches[{i}]")


def check_pc_stalls(doc: dict) -> None:
    string(need(doc, "kernel"), "kernel")
    sass = lst(need(doc, "sass"), "sass")
    for i, t in enumerate(sass):
        string(t, f"sass[{i}]")
    reasons = lst(need(doc, "reasons"), "reasons")
    for i, r in enumerate(reasons):
        string(r, f"reasons[{i}]")
    samples = lst(need(doc, "samples"), "samples", len(sass))
    for i, row in enumerate(samples):
        for j, n in enumerate(lst(row, f"samples[{i}]", len(reasons))):
            number(n, f"samples[{i}][{j}]", minimum=0)
    if "conditions" in doc:
        string(doc["conditions"], "conditions")


def check_memory(doc: dict) -> None:
    metrics = obj(need(doc, "metrics"), "metrics")
    for k, v in metrics.items():
        string(v, f"metrics.{k}")
    for i, launch in enumerate(lst(need(doc, "launches"), "launches")):
        obj(launch, f"launches[{i}]")
        string(need(launch, "kernel", f"launches[{i}]"), f"launches[{i}].kernel")
        for k in metrics:
            number(need(launch, k, f"launches[{i}]"), f"launches[{i}].{k}", minimum=0, nullable=True)
    total = obj(need(doc, "total"), "total")
    for k in metrics:
        number(need(total, k, "total"), f"total.{k}", minimum=0, nullable=True)
    if "conditions" in doc:
        string(doc["conditions"], "conditions")


CHECKS = {"hardware": check_hardware, "sass_counts": check_sass_counts, "pc_stalls": check_pc_stalls,
          "memory": check_memory}
