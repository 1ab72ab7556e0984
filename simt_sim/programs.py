"""Where the project's programs live: programs/<purpose>/<name>/ (programs/README.md).

A program is a folder with a manifest.yaml.  Its name (``v-vote``, ``w-matmul-plain``) is unique
across the purposes, so commands and study files name a program without its folder; this module
turns the name into the folder.  The purposes, in the order programs/README.md lists them:
"""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PURPOSES = {
    "examples": "small kernels README and the tutorials use (branching article, figures, first steps)",
    "validation": "the validation suite: one effect per program, each recorded on the H100 (v-*)",
    "workloads": "the seed papers' workloads: regrouping, fusion, pipelining, ILP, warp specialisation (w-*)",
    "sass-diff": "differential programs: one SASS instruction family on edge-case operands, against the H100 (s-*)",
    "probes": "calibration microbenchmarks behind the config's values (t-*, micro-*, launch-empty)",
    "realworld": "kernels written after public benchmark suites' algorithms, to test timing on code it was not "
                 "tuned on (r-*, issue 64)",
}


def purpose_of(name: str) -> str:
    """The purpose folder a program of this name belongs in (by its name's prefix)."""
    if name.startswith(("t-", "micro-")) or name == "launch-empty":
        return "probes"
    for prefix, purpose in (("v-", "validation"), ("w-", "workloads"), ("s-", "sass-diff"), ("r-", "realworld")):
        if name.startswith(prefix):
            return purpose
    return "examples"


def program_dir(name: str, root: Path = ROOT) -> Path:
    """programs/<purpose>/<name> under `root`.  A name that is not there gives the folder it would
    have; loading it then reports the missing manifest by that path."""
    base = Path(root) / "programs"
    for purpose in PURPOSES:
        if (base / purpose / name).is_dir():
            return base / purpose / name
    return base / purpose_of(name) / name


def program_dirs(root: Path = ROOT, pattern: str = "*", needs: str = "manifest.yaml") -> list[Path]:
    """Every program folder whose name matches `pattern` and that holds `needs` (a file or a glob
    relative to the folder), sorted by name."""
    base = Path(root) / "programs"
    found = [d for purpose in PURPOSES for d in (base / purpose).glob(pattern)
             if d.is_dir() and any(d.glob(needs))]
    return sorted(found, key=lambda d: d.name)


def program_file(relative: str, root: Path = ROOT) -> Path:
    """A file named relative to programs/ without the purpose folder: "v-vote/reference/h100.json"."""
    name, _, rest = str(relative).partition("/")
    return program_dir(name, root) / rest if rest else program_dir(name, root)


# ---------------------------------------------------------------- the README tables
def _description(folder: Path) -> str:
    import yaml                                     # only the table writer reads manifests this way
    try:
        text = yaml.safe_load((folder / "manifest.yaml").read_text()).get("description", "")
    except (OSError, yaml.YAMLError, AttributeError):
        text = ""
    return " ".join(str(text).split()).replace("|", "\\|")


def readme_tables(root: Path = ROOT) -> dict[Path, str]:
    """programs/README.md (the purposes) and programs/<purpose>/README.md (one row per program),
    made from the manifests' descriptions."""
    base = Path(root) / "programs"
    top = ["# Programs", "",
           "Each program is a folder with a `manifest.yaml` (grid, block, buffers, config), its kernel",
           "(`kernel.cu` and the PTX nvcc makes of it, or hand-written PTX) and, where recorded, the GPU's",
           "references under `reference/`. Commands name a program by its folder or its name alone",
           "(`simt-sim validate v-vote`). Shared CUDA headers are in `include/`.", "",
           "| folder | what is there | programs |", "|---|---|---|"]
    out = {}
    every = program_dirs(root)
    for purpose, what in PURPOSES.items():
        if not (base / purpose).is_dir():           # a purpose with no program yet
            continue
        dirs = [d for d in every if d.parent.name == purpose]
        top.append(f"| [{purpose}/]({purpose}/README.md) | {what} | {len(dirs)} |")
        rows = [f"# programs/{purpose}", "", what[0].upper() + what[1:] + ".",
                "(Generated from each manifest's `description` by `python -m simt_sim.programs --write`.)", "",
                "| program | CUDA source | recorded | description |", "|---|---|---|---|"]
        for d in dirs:
            recorded = ", ".join(sorted({p.stem.split("-")[0] for p in (d / "reference").glob("*.json")})) or "—"
            cuda = "yes" if (d / "kernel.cu").is_file() else "—"
            rows.append(f"| [{d.name}]({d.name}/manifest.yaml) | {cuda} | {recorded} | {_description(d)} |")
        out[base / purpose / "README.md"] = "\n".join(rows) + "\n"
    out[base / "README.md"] = "\n".join(top) + "\n"
    return out


def main(argv: list[str] | None = None) -> int:
    import argparse
    ap = argparse.ArgumentParser(prog="python -m simt_sim.programs",
                                 description="List the programs by purpose; --write regenerates the README tables.")
    ap.add_argument("--write", action="store_true", help="rewrite programs/README.md and programs/*/README.md")
    ns = ap.parse_args(argv)
    if ns.write:
        from simt_sim.files import write_atomic
        for path, text in readme_tables().items():
            write_atomic(path, text)
            print(f"wrote {path.relative_to(ROOT)}")
        return 0
    every = program_dirs()
    for purpose in PURPOSES:
        names = [d.name for d in every if d.parent.name == purpose]
        print(f"{purpose} ({len(names)}): {' '.join(names)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
