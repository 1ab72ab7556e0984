"""JSON exports written as a stream (issue 62): `simt-sim run --json` of a 1 GiB buffer or of a
long history writes its lists a chunk at a time, so that the export holds at most a chunk of
Python objects beside the arrays the run already keeps (before: every number and mask string of
the document at once, 10.8 GB for a 1 GiB buffer).

A document is a dict whose values may be `Streamed` parts; `write_document` writes the same JSON
that json.dumps(materialize(doc)) would (whitespace aside), and `materialize` turns it into plain
Python objects (Result.to_json() returns that).
"""
from __future__ import annotations

import json

import numpy as np

CHUNK = 1 << 16


class Streamed:
    def materialize(self):
        raise NotImplementedError

    def write(self, f) -> None:
        raise NotImplementedError


def _write_list(f, chunks) -> None:
    """A JSON list from an iterable of lists of plain values."""
    f.write("[")
    first = True
    for chunk in chunks:
        if not chunk:
            continue
        text = json.dumps(chunk, default=float)[1:-1]
        f.write(text if first else ", " + text)
        first = False
    f.write("]")


def buffer_values(arr: np.ndarray) -> list:
    """A buffer's values as JSON takes them: floats, with inf / nan as strings."""
    if arr.dtype.kind == "f":
        return [float(x) if np.isfinite(x) else str(x) for x in arr.tolist()]
    return arr.tolist()


class Buffer(Streamed):
    def __init__(self, arr: np.ndarray):
        self.arr = arr

    def materialize(self):
        return buffer_values(self.arr)

    def write(self, f) -> None:
        if self.arr.ndim != 1:
            f.write(json.dumps(self.materialize(), default=float))
            return
        _write_list(f, (buffer_values(self.arr[i:i + CHUNK]) for i in range(0, len(self.arr), CHUNK)))


def mask_strings(masks: np.ndarray, width: int) -> list[str]:
    """Masks as '0'/'1' strings, lane 0 first (session.mask_bits), for a whole array at once."""
    if not len(masks):
        return []
    bits = ((masks.astype(np.uint64)[:, None] >> np.arange(width, dtype=np.uint64)) & np.uint64(1)).astype(np.uint8)
    return (bits + ord("0")).view(f"S{width}").reshape(-1).astype(f"U{width}").tolist()


class History(Streamed):
    """The mask history by warp: {gid: {label, pc, mask, exec_mask}}, warps in ascending order and
    each warp's rows in issue order (one stable sort, not a scan of the history per warp)."""

    def __init__(self, history: np.ndarray, width: int, label):
        self.history, self.width, self.label = history, width, label

    def groups(self):
        h = self.history
        if not len(h):
            return
        order = np.argsort(h[:, 0], kind="stable")
        gids = h[order, 0]
        starts = np.flatnonzero(np.r_[True, gids[1:] != gids[:-1]])
        ends = np.r_[starts[1:], len(gids)]
        for a, b in zip(starts, ends):
            yield int(gids[a]), order[a:b]

    def _columns(self, rows):
        h = self.history
        for i in range(0, len(rows), CHUNK):
            yield h[rows[i:i + CHUNK]]

    def materialize(self):
        out = {}
        for gid, rows in self.groups():
            r = self.history[rows]
            out[str(gid)] = {"label": self.label(gid), "pc": r[:, 1].tolist(),
                             "mask": mask_strings(r[:, 2], self.width),
                             "exec_mask": mask_strings(r[:, 3], self.width)}
        return out

    def write(self, f) -> None:
        f.write("{")
        for k, (gid, rows) in enumerate(self.groups()):
            f.write((", " if k else "") + json.dumps(str(gid)) + ": {\"label\": " + json.dumps(self.label(gid)))
            for name, column, strings in (("pc", 1, False), ("mask", 2, True), ("exec_mask", 3, True)):
                f.write(f", \"{name}\": ")
                _write_list(f, (mask_strings(c[:, column], self.width) if strings else c[:, column].tolist()
                                for c in self._columns(rows)))
            f.write("}")
        f.write("}")


def materialize(value):
    if isinstance(value, Streamed):
        return value.materialize()
    if isinstance(value, dict):
        return {k: materialize(v) for k, v in value.items()}
    if isinstance(value, list):
        return [materialize(v) for v in value]
    return value


def _has_streamed(value) -> bool:
    if isinstance(value, Streamed):
        return True
    if isinstance(value, dict):
        return any(_has_streamed(v) for v in value.values())
    return False


def write_document(f, doc, indent: int = 0) -> None:
    """Write `doc` as JSON to the text file f, its Streamed parts a chunk at a time."""
    if isinstance(doc, Streamed):
        doc.write(f)
        return
    if not (isinstance(doc, dict) and _has_streamed(doc)):
        f.write(json.dumps(doc, default=float))
        return
    pad = "\n" + " " * (indent + 1)
    f.write("{")
    for k, (key, value) in enumerate(doc.items()):
        f.write(("," if k else "") + pad + json.dumps(str(key)) + ": ")
        write_document(f, value, indent + 1)
    f.write("\n" + " " * indent + "}")
