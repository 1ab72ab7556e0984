"""programs/ is sorted by purpose (simt_sim/programs.py): every program in the folder its name
says, names unique, the README tables current, and a program found by its name alone."""
from pathlib import Path

import pytest

from simt_sim.frontend.manifest import load_manifest, manifest_path
from simt_sim.programs import PURPOSES, program_dir, program_dirs, program_file, purpose_of, readme_tables

ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = ROOT / "programs"


def test_only_purpose_folders_sit_under_programs():
    top = {p.name for p in PROGRAMS.iterdir()}
    assert top <= set(PURPOSES) | {"include", "README.md"}
    assert {"examples", "validation", "workloads", "sass-diff", "probes", "include"} <= top


def test_every_program_sits_in_the_folder_its_name_says():
    dirs = program_dirs()
    assert len(dirs) >= 240
    wrong = [d.relative_to(PROGRAMS).as_posix() for d in dirs if d.parent.name != purpose_of(d.name)]
    assert wrong == []
    names = [d.name for d in dirs]
    assert len(names) == len(set(names)), "a program name appears under two purposes"


def test_every_manifest_names_files_that_exist():
    for d in program_dirs():
        m = load_manifest(str(d))
        assert m.kernel_file.is_file(), d


def test_readme_tables_are_current():
    """Rewrite with `python -m simt_sim.programs --write` after adding or describing a program."""
    for path, text in readme_tables().items():
        assert path.read_text() == text, f"{path.relative_to(ROOT)} is stale"
    table = (PROGRAMS / "validation" / "README.md").read_text()
    assert "| [v-vote](v-vote/manifest.yaml) | yes | h100" in table


@pytest.mark.parametrize("name,purpose", [("v-vote", "validation"), ("w-matmul-plain", "workloads"),
                                          ("s-lop3", "sass-diff"), ("t-mio-w1", "probes"),
                                          ("micro-lat-fp32", "probes"), ("launch-empty", "probes"),
                                          ("article-ex1-mask", "examples"), ("two-streams", "examples")])
def test_a_name_finds_its_folder(name, purpose):
    assert program_dir(name) == PROGRAMS / purpose / name
    assert program_file(f"{name}/manifest.yaml") == PROGRAMS / purpose / name / "manifest.yaml"


def test_a_command_may_name_a_program_alone_or_by_its_old_path(monkeypatch):
    monkeypatch.chdir(ROOT)
    want = PROGRAMS / "validation" / "v-vote" / "manifest.yaml"
    assert manifest_path("v-vote") == want
    assert manifest_path("programs/v-vote") == want                  # the path before the sort
    assert manifest_path("programs/validation/v-vote") == Path("programs/validation/v-vote/manifest.yaml")
    assert manifest_path("no-such-program") == Path("no-such-program")   # reported by its reader


def test_a_missing_name_gives_the_folder_it_would_have(tmp_path):
    assert program_dir("w-new", tmp_path) == tmp_path / "programs" / "workloads" / "w-new"
