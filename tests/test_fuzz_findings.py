"""Regression tests for what tools/fuzz.py found (docs/fuzzing.md): each input ended in a traceback
before its fix and is now a clean bad-input error."""
import json
import shutil
import sys
from pathlib import Path

import pytest
import yaml

from simt_sim.errors import InputError
from simt_sim.programs import program_dir

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

ROOT = Path(__file__).resolve().parents[1]


def test_a_clock_output_that_is_not_a_name_is_a_located_error(tmp_path):
    """fuzz seed 0 input 177: `clock_outputs: [{...}]` raised TypeError (unhashable dict)."""
    from simt_sim.frontend.manifest import load_manifest
    d = tmp_path / "p"
    shutil.copytree(ROOT / "programs" / "examples" / "article-ex1-mask", d)
    m = yaml.safe_load((d / "manifest.yaml").read_text())
    m["clock_outputs"] = [{"x": {"y": [None]}}]
    (d / "manifest.yaml").write_text(yaml.safe_dump(m))
    with pytest.raises(InputError, match=r"manifest.yaml:\d+:\d+: error: clock output .* is not a buffer"):
        load_manifest(str(d))


@pytest.mark.parametrize("where", ["main", "more_launches"])
@pytest.mark.parametrize("value", ["", ".", "reference"])
def test_a_kernel_file_that_names_a_folder_is_a_located_error(tmp_path, value, where):
    """fuzz seed 0 input 433 (long profile): `kernel_file: ""` named the manifest's folder, which
    exists, and default_isa raised ValueError (PosixPath('.') has an empty name)."""
    from simt_sim.frontend.manifest import load_manifest
    d = tmp_path / "p"
    shutil.copytree(ROOT / "programs" / "examples" / "article-ex1-mask", d)
    (d / "reference").mkdir(exist_ok=True)
    m = yaml.safe_load((d / "manifest.yaml").read_text())
    if where == "main":
        m["kernel_file"] = value
    else:
        m["more_launches"] = [{"grid": m["grid"], "block": m["block"], "args": m["args"], "kernel_file": value}]
    (d / "manifest.yaml").write_text(yaml.safe_dump(m))
    with pytest.raises(InputError, match=r"manifest.yaml:\d+:\d+: error: kernel file .* not found"):
        load_manifest(str(d))


@pytest.mark.parametrize("field,value", [("operands", 0.5), ("operands", ["R1", "R2"]), ("predicate", {"a": 1}),
                                         ("opcode", None), ("other-attributes", [1])])
def test_an_nvdisasm_instruction_of_the_wrong_shape_is_an_input_error(field, value):
    """fuzz seed 0 inputs 30, 46, 158, 214, 398: a listing instruction whose operands were a number
    or a list, or whose predicate was an object, raised TypeError / AttributeError in
    split_operands and the lowering."""
    from simt_sim.frontend import sass as S
    js, hx = S.nvdisasm_listings(ROOT / "programs" / "validation" / "v-vote" / "kernel.sm_90.cubin")
    doc = json.loads(js)
    doc[1][0]["sass-instructions"][2][field] = value
    structured, encoded = S.parse_json_listing(json.dumps(doc)), S.parse_hex_listing(hx)
    name = doc[1][0]["function-name"]
    with pytest.raises(InputError, match=f"unexpected instruction 2 of {name} at pc 0x20"):
        S.build_kernel(name, structured[name], encoded[name])


def listing_with(program: str, edits: dict[int, str]):
    """nvdisasm's listings of programs/PURPOSE/NAME's committed cubin with instruction k's operands
    replaced by edits[k]."""
    from simt_sim.frontend import sass as S
    js, hx = S.nvdisasm_listings(program_dir(program) / "kernel.sm_90.cubin")
    doc = json.loads(js)
    for k, operands in edits.items():
        doc[1][0]["sass-instructions"][k]["operands"] = operands
    return json.dumps(doc), hx


@pytest.mark.parametrize("operands,message", [
    ("R300,R7,0x4,R2", r"'IMAD.WIDE R300, R7, 0x4, R2' at pc 0x0080: register R300 does not exist \(R0-R254, RZ\)"),
    ("R2,R7,UR99,R2", r"register UR99 does not exist \(UR0-UR62, URZ\)"),
])
def test_a_register_beyond_the_register_file_is_refused(operands, message):
    """fuzz (CI profile) sass inputs 142 and others: R300 / UR99 in a listing indexed past the
    register rows (IndexError in the engine), and a UR above UR62 would have aliased an R row."""
    import fuzz
    with pytest.raises(InputError, match=message):
        fuzz.lower_listing(*listing_with("v-vote", {8: operands}), ROOT / "programs" / "validation" / "v-vote")


def test_a_pair_at_the_last_register_has_its_row(tmp_path):
    """IMAD.WIDE writing the pair R254/R255 (beyond ptxas's count): the thread gets rows past R254
    instead of an IndexError, and the load that takes its address from R254.64 gives the outputs
    of the unedited kernel."""
    import fuzz
    prog, _ = fuzz.lower_listing(*listing_with("v-vote", {8: "R254,R7,0x4,R2", 9: "R2,desc[UR4][R254.64]"}),
                                 ROOT / "programs" / "validation" / "v-vote")
    from simt_sim.isa import encoding as E
    assert prog.n_r32 == E.SASS_R_BASE + 254 + 4
    res = fuzz.run_listing(*listing_with("v-vote", {8: "R254,R7,0x4,R2", 9: "R2,desc[UR4][R254.64]"}),
                           ROOT / "programs" / "validation" / "v-vote")
    ref = fuzz.run_listing(*listing_with("v-vote", {}), ROOT / "programs" / "validation" / "v-vote")
    assert all((res.buffers[k] == ref.buffers[k]).all() for k in ref.buffers)


def test_tool_output_that_is_not_utf8_is_read_not_raised():
    """fuzz seed 0 input 1031 (long profile, a cubin with garbage bytes): nvdisasm printed a byte
    that is not UTF-8 and reading its output raised UnicodeDecodeError; now the bytes read as
    U+FFFD and the listing's own checks refuse the cubin (exit 2)."""
    from simt_sim.frontend.sass import _run
    r = _run([sys.executable, "-c", "import sys; sys.stdout.buffer.write(b'ok \\xa0 \\xff end')"], "a tool")
    assert r.stdout == "ok \ufffd \ufffd end"


def test_an_empty_npy_file_is_a_bad_initialiser(tmp_path):
    """fuzz seed 0 input 4580 (long profile): `file(a.npy)` of an empty a.npy raised EOFError from
    numpy instead of the buffer spec's own error."""
    from simt_sim.frontend.manifest import parse_buffer_spec
    (tmp_path / "a.npy").write_bytes(b"")
    with pytest.raises(ValueError, match=r"buffer 'a': bad initialiser .*a\.npy.* is not a numeric \.npy array"):
        parse_buffer_spec("a", "i16[100]:file(a.npy)", tmp_path)


def test_a_64_bit_float_pattern_in_a_32_bit_operand_is_refused_as_ptxas_refuses_it(tmp_path):
    """fuzz seed 0 input 6264 (long profile): `shl.b32 %r2, %r1, 0dFFFFFFFFFFFFFFFF;` raised
    OverflowError writing the pattern into the row's int64 immediate field; then it was accepted.
    ptxas 13 refuses it ('Arguments mismatch'): a 0f pattern goes only where the operand is .b32 /
    .f32, a 0d pattern only where it is .b64 / .f64, so the shift amount (.u32), add.s32, mov.u32
    and a 0d in a .b32 mov are refused by name at file:line:column; and.b32 / mov.b32 / selp.b32 /
    prmt / st.b32 with a 0f pattern and xor.b64 / mov.b64 with a 0d pattern are taken, as ptxas
    takes them (31 forms checked against ptxas -arch=sm_90)."""
    from simt_sim.frontend.assembler import load_program

    def load(line):
        ptx = tmp_path / "k.ptx"
        ptx.write_text(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
                       " .reg .b32 %r<4>;\n .reg .b64 %rd<3>;\n .reg .pred %p<2>;\n ld.param.u64 %rd1, [p];\n"
                       " mov.u32 %r1, 5;\n setp.ne.u32 %p1, %r1, 0;\n" + line + "\n st.global.u32 [%rd1], %r2;\n"
                       " st.global.u64 [%rd1+8], %rd2;\n ret;\n}\n")
        return load_program(str(ptx))

    for line, col, what in ((" shl.b32 %r2, %r1, 0dFFFFFFFFFFFFFFFF;", 20, "0dFFFFFFFFFFFFFFFF needs a .b64 (or .f64) operand, not .u32"),
                            (" shl.b32 %r2, %r1, 0f00000003;", 20, "0f00000003 needs a .b32 (or .f32) operand, not .u32"),
                            (" mov.b32 %r2, 0dFFFFFFFFFFFFFFFF;", 15, "needs a .b64 (or .f64) operand, not .b32"),
                            (" add.s32 %r2, %r1, 0f3F800000;", 20, "not .s32"),
                            (" mov.u32 %r2, 0f3F800000;", 15, "not .u32"),
                            (" and.b64 %rd2, %rd1, 0f3F800000;", 22, "needs a .b32 (or .f32) operand, not .b64")):
        with pytest.raises(InputError) as e:
            load(line)
        assert f"k.ptx:12:{col}: error:" in str(e.value) and what in str(e.value), (line, str(e.value))
    for line in (" and.b32 %r2, %r1, 0f3F800000;", " mov.b32 %r2, 0fFFFFFFFF;", " selp.b32 %r2, %r1, 0f3F800000, %p1;",
                 " xor.b64 %rd2, %rd1, 0dFFFFFFFFFFFFFFFF;", " shl.b32 %r2, 0f3F800000, 3;", " st.global.b32 [%rd1+4], 0f3F800000;"):
        load(line)
