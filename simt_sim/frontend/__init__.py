"""Front end: PTX text -> syntax tree (parser) -> encoded program (assembler) + CFG analysis."""
