"""Regression tests for what tools/fuzz.py found (docs/fuzzing.md): each input ended in a traceback
before its fix and is now a clean bad-input error."""
import json
import shutil
from pathlib import Path

import pytest
import yaml

from simt_sim.errors import InputError

ROOT = Path(__file__).resolve().parents[1]


def test_a_clock_output_that_is_not_a_name_is_a_located_error(tmp_path):
    """fuzz seed 0 input 177: `clock_outputs: [{...}]` raised TypeError (unhashable dict)."""
    from simt_sim.frontend.manifest import load_manifest
    d = tmp_path / "p"
    shutil.copytree(ROOT / "programs" / "article-ex1-mask", d)
    m = yaml.safe_load((d / "manifest.yaml").read_text())
    m["clock_outputs"] = [{"x": {"y": [None]}}]
    (d / "manifest.yaml").write_text(yaml.safe_dump(m))
    with pytest.raises(InputError, match=r"manifest.yaml:\d+:\d+: error: clock output .* is not a buffer"):
        load_manifest(str(d))


@pytest.mark.parametrize("field,value", [("operands", 0.5), ("operands", ["R1", "R2"]), ("predicate", {"a": 1}),
                                         ("opcode", None), ("other-attributes", [1])])
def test_an_nvdisasm_instruction_of_the_wrong_shape_is_an_input_error(field, value):
    """fuzz seed 0 inputs 30, 46, 158, 214, 398: a listing instruction whose operands were a number
    or a list, or whose predicate was an object, raised TypeError / AttributeError in
    split_operands and the lowering."""
    from simt_sim.frontend import sass as S
    js, hx = S.nvdisasm_listings(ROOT / "programs" / "v-vote" / "kernel.sm_90.cubin")
    doc = json.loads(js)
    doc[1][0]["sass-instructions"][2][field] = value
    structured, encoded = S.parse_json_listing(json.dumps(doc)), S.parse_hex_listing(hx)
    name = doc[1][0]["function-name"]
    with pytest.raises(InputError, match=f"unexpected instruction 2 of {name} at pc 0x20"):
        S.build_kernel(name, structured[name], encoded[name])
