"""The sweep's table: its columns and types, and the .csv / .parquet file it streams to.

The file always holds a complete table: it is rewritten whole (to a temporary file, then
renamed: simt_sim/files.py), CSV and Parquet alike, at most every PARQUET_EVERY_S seconds as runs
finish and at the end.  When the sweep ends the file is rewritten once more in
a fixed order (rows of earlier sweeps not in this one first, then this sweep's plan order), so
the same inputs give the same file whichever order the runs finished in.
"""
from __future__ import annotations

import csv
import math
import os
import time
from pathlib import Path

from simt_sim.files import atomic_path, write_atomic
from simt_sim.errors import InputError
from simt_sim.machine.layout import STALL_NAMES

KEY_COLUMNS = ["program", "config", "scheduler", "set", "seed", "grid", "block"]
RESULT_COLUMNS = ["status", "outputs", "cycles", "ipc", "cfe", "simd_efficiency", "issue_slot_use",
                  "warp_instructions", "thread_instructions", "kernels",
                  *(f"stall.{n}" for n in STALL_NAMES), "wall_s", "error"]
INT_COLUMNS = {"seed", "cycles", "warp_instructions", "thread_instructions", "kernels",
               *(f"stall.{n}" for n in STALL_NAMES)}
FLOAT_COLUMNS = {"ipc", "cfe", "simd_efficiency", "issue_slot_use", "wall_s"}
FORMATS = (".csv", ".parquet")
PARQUET_EVERY_S = 2.0


def columns_for(set_keys: list[str], existing: list[str] = ()) -> list[str]:
    """Key columns, set.KEY columns (this sweep's, then any others the file has), results."""
    set_columns = list(dict.fromkeys([f"set.{k}" for k in set_keys] + [c for c in existing if c.startswith("set.")]))
    return KEY_COLUMNS + set_columns + RESULT_COLUMNS


def row_key(row: dict) -> tuple:
    return tuple(row.get(c) if c != "seed" else int(row.get(c) or 0) for c in KEY_COLUMNS)


def table_format(path: Path) -> str:
    kind = path.suffix.lower()
    if kind not in FORMATS:
        raise InputError(f"--out {path}: expected a .csv or .parquet file name")
    return kind


def typed(column: str, value):
    """A cell as its column's type (CSV gives strings); None for an empty number."""
    if column in INT_COLUMNS:
        return None if value in (None, "") else int(value)
    if column in FLOAT_COLUMNS:
        if value in (None, ""):
            return None
        number = float(value)
        return None if math.isnan(number) else number
    return "" if value is None else str(value)


def read_table(path: Path) -> tuple[list[dict], list[str]]:
    """The rows and columns of an earlier sweep's file ([] when there is none)."""
    if not path.exists():
        return [], []
    try:
        if table_format(path) == ".csv":
            with open(path, newline="", encoding="utf-8") as f:
                reader = csv.DictReader(f)
                raw = list(reader)
                names = list(reader.fieldnames or [])
        else:
            import pyarrow.parquet as pq
            table = pq.read_table(path)
            raw, names = table.to_pylist(), table.column_names
    except (OSError, ValueError, csv.Error) as e:
        raise InputError(f"--out {path}: cannot read the earlier results ({e})") from None
    missing = [c for c in KEY_COLUMNS + ["status"] if c not in names]
    if missing:
        raise InputError(f"--out {path}: not a sweep table (no column {missing[0]!r})")
    return [{c: typed(c, r.get(c)) for c in names} for r in raw], names


class TableWriter:
    """Streams rows to path: `add(row)` as runs finish, `finish(rows)` with the final order."""

    def __init__(self, path: Path, columns: list[str], kept: list[dict]):
        self.path, self.columns, self.kind = path, columns, table_format(path)
        self.rows = list(kept)
        self.last_write = 0.0
        self.rewrite(self.rows)
        self.csv_file = None

    def add(self, row: dict) -> None:
        # the whole table is rewritten atomically (files.atomic_path), at most every
        # PARQUET_EVERY_S: a reader or a crash never sees half a row, only an older table
        self.rows.append(row)
        if time.monotonic() - self.last_write >= PARQUET_EVERY_S:
            self.rewrite(self.rows)

    def finish(self, rows: list[dict]) -> None:
        self.close()
        self.rewrite(rows)

    def close(self) -> None:
        if self.csv_file is not None:
            self.csv_file.close()
            self.csv_file = None

    def cells(self, row: dict) -> dict:
        return {c: ("" if row.get(c) is None else row.get(c)) for c in self.columns}

    def rewrite(self, rows: list[dict]) -> None:
        """The whole table, atomically (a reader never sees half a file)."""
        with atomic_path(self.path) as tmp:
            if self.kind == ".csv":
                with open(tmp, "w", newline="", encoding="utf-8") as f:
                    w = csv.DictWriter(f, self.columns, extrasaction="ignore")
                    w.writeheader()
                    w.writerows(self.cells(r) for r in rows)
            else:
                write_parquet(tmp, rows, self.columns)
        self.last_write = time.monotonic()


def write_parquet(path: Path, rows: list[dict], columns: list[str]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq
    types = {c: pa.int64() if c in INT_COLUMNS else pa.float64() if c in FLOAT_COLUMNS else pa.string()
             for c in columns}
    schema = pa.schema([(c, types[c]) for c in columns])
    table = pa.Table.from_pylist([{c: typed(c, r.get(c)) for c in columns} for r in rows], schema=schema)
    pq.write_table(table, path)


def check_writable(path: Path) -> None:
    table_format(path)
    folder = path.parent
    if not folder.is_dir():
        raise InputError(f"--out {path}: no folder {str(folder)!r}")
    if path.is_dir() or not os.access(path if path.exists() else folder, os.W_OK):
        raise InputError(f"--out {path}: cannot write it")
