"""Register-file banks and the reuse cache in SASS timing (engine/cycle/regfile.py), and the SASS
patches that make the t-regbank-* probes (frontend/sass_patch.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from simt_sim.calibrate.probes.programs import simulated_measurement
from simt_sim.errors import InputError
from simt_sim.frontend.sass import committed_cubin_path, disassemble_cubin, sass_listing
from simt_sim.frontend.sass_lower import load_kernel
from simt_sim.frontend.sass_patch import apply_patch, find_patch, load_patch
from simt_sim.frontend.cubin_elf import read_cubin
from simt_sim.isa import encoding as E
from simt_sim.machine.tables import RegisterNumbering, register_reads
from simt_sim.programs import program_dir

ROOT = Path(__file__).resolve().parent.parent


def cycles_per_ffma(name: str, sets=()) -> float:
    clk = simulated_measurement(name, "sass", list(sets))["clk"]
    return (clk[3] - clk[2]) / 256                   # second pass: instructions in the L0 cache


def test_the_patch_renumbers_ptxas_cubin_into_the_committed_one():
    """ptxas's cubin (t-regbank-ptxas, unpatched) with t-regbank-same3's patch applied is, byte for
    byte, the cubin that program commits and the H100 ran."""
    plain = committed_cubin_path(program_dir("t-regbank-ptxas") / "kernel.ptx")
    patch = find_patch(program_dir("t-regbank-same3") / "kernel.ptx")
    kernels = disassemble_cubin(plain)
    offsets = read_cubin(plain).offsets
    patched = apply_patch(plain.read_bytes(), {k.name: offsets[f".text.{k.name}"] for k in kernels}, kernels, patch)
    assert patched == committed_cubin_path(program_dir("t-regbank-same3") / "kernel.ptx").read_bytes()
    ffma = [i for i in sass_listing(str(program_dir("t-regbank-same3"))).kernel("regbank").instructions
            if i.opcode == "FFMA"]
    assert len(ffma) == 256
    assert ffma[:4] and [i.operands[1:] for i in ffma[:2]] == [("R4", "R8", "R12"), ("R5", "R9", "R13")]
    assert all(i.control.reuse == 0 for i in ffma)


def test_a_yield_patch_clears_the_hint_of_every_instruction_it_names():
    """tools/kernels/warp_ends_noyield: ptxas's cubin of the warp-ends kernels with the yield hint
    cleared on every FMUL is, byte for byte, the committed cubin the H100 ran; nothing else moved."""
    kernels_dir = Path(__file__).resolve().parents[1] / "tools" / "kernels"
    plain = committed_cubin_path(kernels_dir / "warp_ends.ptx")
    patch = find_patch(kernels_dir / "warp_ends_noyield.ptx")
    kernels = disassemble_cubin(plain)
    offsets = read_cubin(plain).offsets
    patched = apply_patch(plain.read_bytes(), {k.name: offsets[f".text.{k.name}"] for k in kernels}, kernels, patch)
    assert patched == committed_cubin_path(kernels_dir / "warp_ends_noyield.ptx").read_bytes()
    before = [i for k in kernels for i in k.instructions]
    after = [i for k in disassemble_cubin(committed_cubin_path(kernels_dir / "warp_ends_noyield.ptx")) for i in k.instructions]
    fmuls = [(a, b) for a, b in zip(before, after) if a.opcode == "FMUL"]
    assert sum(a.control.yield_bit == 0 for a, _ in fmuls) > 60            # ptxas's Y on most FMULs
    assert all(b.control.yield_bit == 1 for _, b in fmuls)                  # none left
    assert all(a.control == b.control for a, b in zip(before, after) if a.opcode != "FMUL")


@pytest.mark.parametrize("text, where, message", [
    ("opcode: FMUL\n", ":1:1", "give `sources`"),
    ("opcode: FMUL\nyield_hint: 3\n", ":2:13", "yield_hint"),
    ("opcode: IMAD\nsources: [[R1, R2, R3]]\n", ":1:9", "cannot patch 'IMAD'"),
    ("opcode: FFMA\nsources: [[R1, R2]]\n", ":2:11", r"expected \[Ra, Rb, Rc\]"),
    ("opcode: FFMA\nsources: [[R1, R2, X3]]\n", ":2:11", "expected a register"),
    ("opcode: FFMA\nsources: [[R1, R2, R3]]\nreuse: [4]\n", ":3:9", "source slot is 0, 1 or 2"),
])
def test_bad_patches_name_file_line_and_column(tmp_path, text, where, message):
    path = tmp_path / "kernel.sass-patch.yaml"
    path.write_text(text)
    with pytest.raises(InputError, match=message) as e:
        load_patch(path)
    assert str(e.value).startswith(f"{path}{where}")


def test_register_reads_per_source_slot():
    """FFMA R4, R12.reuse, R4, R13.reuse reads R12, R4 and R13 in slots 0-2; an address reads
    its register pair; immediates, constants and RZ read nothing."""
    prog = load_kernel(str(program_dir("t-regbank-ptxas") / "kernel.ptx"), None, "sass")
    by_text = {t: prog.code[pc] for pc, t in enumerate(prog.texts)}
    numbering = RegisterNumbering(prog.n_r32, prog.n_r64, prog.n_pred)
    ffma = next(r for t, r in by_text.items() if t.startswith("FFMA R4, R12.reuse, R4"))
    R = E.SASS_R_BASE                   # R registers follow the uniform ones in the numbering
    assert register_reads(ffma, prog.vec_regs, numbering)[:3] == [(R + 12, 1), (R + 4, 1), (R + 13, 1)]
    ldg = next(r for t, r in by_text.items() if t.startswith("LDG.E R4,"))
    assert register_reads(ldg, prog.vec_regs, numbering)[0] == (R + 14, 2)
    imad = next(r for t, r in by_text.items() if t.startswith("IMAD.WIDE"))
    assert [c for _, c in register_reads(imad, prog.vec_regs, numbering)] == [1, 0, 2]


def test_an_hmma_reads_its_whole_fragments():
    """HMMA.16816 names A, B and C by their first registers but reads 4, 2 and 4 (f32 accumulators)
    or 2 (f16) of them; a zero accumulator (RZ) reads none.  Read through the two banks, two warps
    of one sub-partition with 4 f32 HMMA chains each get one every 6.9 cycles (H100 6.82,
    probe hmma_rate); counting one register a fragment gave 7.7."""
    from simt_sim.calibrate import probes
    kernels = ROOT / "tools" / "kernels"
    R = E.SASS_R_BASE
    for name, c_regs in (("k_idle_hmma", 4), ("k_idle_hmma16", 2), ("k_idle_hmmaz", 0)):
        prog = load_kernel(str(kernels / "hmma_beside.ptx"), name, "sass")
        numbering = RegisterNumbering(prog.n_r32, prog.n_r64, prog.n_pred)
        pc = next(pc for pc, t in enumerate(prog.texts) if t.startswith("HMMA.16816"))
        reads = register_reads(prog.code[pc], prog.vec_regs, numbering)[:3]
        assert [c for _, c in reads] == [4, 2, c_regs], name
        assert reads[0][0] == R + 4, name                 # A: R4..R7 in each of these kernels
    HR = probes.get("hmma_rate")
    h100 = HR.recorded()["k_f32_4 / 2 warps, 1 sub-partition"][1]
    assert HR.simulated("k_f32_4 / 2 warps, 1 sub-partition")[1] == pytest.approx(h100, rel=0.03)


def test_three_register_reads_take_one_and_a_half_cycles():
    """Two banks, one read each per cycle: an FFMA stream with all three sources read issues every
    1.5 cycles, with two operands in the reuse cache every cycle; without the bank model both
    issue every cycle."""
    assert cycles_per_ffma("t-regbank-ptxas") == pytest.approx(1.0, abs=0.01)
    for name in ("t-regbank-noreuse", "t-regbank-same3", "t-regbank-distinct4"):
        assert cycles_per_ffma(name) == pytest.approx(1.5, abs=0.01), name
    assert cycles_per_ffma("t-regbank-noreuse", ["sass.register_banks=0"]) == pytest.approx(1.0, abs=0.01)


def test_a_written_register_leaves_the_reuse_cache():
    """t-regbank-same3-reuse keeps R4 and R8 in the reuse cache, but two of every 16 FFMAs write
    them: the next FFMA reads them again (1 + 2 x 2 reads / 2 banks / 16 = 1.125 per FFMA)."""
    assert cycles_per_ffma("t-regbank-same3-reuse") == pytest.approx(1.125, abs=0.01)


def test_four_banks_would_tell_residues_apart():
    """The bank count is a config value: with four banks, equal residues mod 4 conflict and
    distinct ones do not (what the H100 does not show)."""
    same = cycles_per_ffma("t-regbank-same3", ["sass.register_banks=4"])
    distinct = cycles_per_ffma("t-regbank-distinct4", ["sass.register_banks=4"])
    assert distinct == pytest.approx(1.0, abs=0.01) and same > 1.4

