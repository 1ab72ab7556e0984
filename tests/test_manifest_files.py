"""file(NAME.npy) buffer initialisers: values from a .npy file beside the manifest, with the
dtype and length checked against the declared buffer (errors at file:line:column)."""
import numpy as np
import pytest

from simt_sim.errors import InputError
from simt_sim.frontend.manifest import load_manifest, parse_buffer_spec

PTX_KERNEL_FILE = "kernel.ptx"


def write_program(tmp_path, buffer_line: str):
    (tmp_path / PTX_KERNEL_FILE).write_text("// not read by load_manifest\n")
    (tmp_path / "manifest.yaml").write_text(
        "kernel_file: kernel.ptx\ngrid: 1\nblock: 8\nargs: [inp]\nbuffers:\n"
        f"  inp: {buffer_line}\n")
    return tmp_path


def test_file_values_relative_to_the_manifest(tmp_path):
    values = np.array([7, -3, 11, 0, 5], np.int32)
    (tmp_path / "data").mkdir()
    np.save(tmp_path / "data" / "vals.npy", values)
    m = load_manifest(str(write_program(tmp_path, "i32[5]:file(data/vals.npy)")))
    made = m.buffers[0].make()
    assert made.dtype == np.int32 and made.tolist() == [7, -3, 11, 0, 5]


@pytest.mark.parametrize("array,spec,message", [
    (np.arange(5, dtype=np.int64), "i32[5]:file(v.npy)", "v.npy holds int64, the buffer is i32 (int32)"),
    (np.arange(6, dtype=np.int32), "i32[5]:file(v.npy)", "v.npy has shape (6,), the buffer is i32[5]"),
    (np.zeros((5, 1), np.int32), "i32[5]:file(v.npy)", "v.npy has shape (5, 1), the buffer is i32[5]"),
    (np.zeros(5, np.float32), "f64[5]:file(v.npy)", "v.npy holds float32, the buffer is f64 (float64)"),
    (None, "i32[5]:file(missing.npy)", "no such file"),
    (None, "i32[5]:file(a.npy,b.npy)", "file() takes one .npy path"),
])
def test_bad_files_name_manifest_line_and_column(tmp_path, array, spec, message):
    if array is not None:
        np.save(tmp_path / "v.npy", array)
    write_program(tmp_path, spec)
    with pytest.raises(InputError) as e:
        load_manifest(str(tmp_path))
    text = str(e.value)
    assert text.startswith(f"{tmp_path / 'manifest.yaml'}:6:8: error: buffer 'inp': bad initialiser")
    assert message in text


def test_not_an_npy_file_is_a_clear_error(tmp_path):
    (tmp_path / "v.npy").write_text("1,2,3,4,5\n")
    write_program(tmp_path, "i32[5]:file(v.npy)")
    with pytest.raises(InputError, match=r"manifest.yaml:6:8: .*is not a numeric .npy array"):
        load_manifest(str(tmp_path))


def test_command_line_specs_read_relative_to_the_working_directory(tmp_path, monkeypatch):
    np.save(tmp_path / "w.npy", np.array([1, 2, 3], np.uint16))
    monkeypatch.chdir(tmp_path)
    assert parse_buffer_spec("w", "u16[3]:file(w.npy)").make().tolist() == [1, 2, 3]
