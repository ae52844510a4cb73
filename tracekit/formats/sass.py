"""NVIDIA SASS opcodes -> trace v1 instruction classes and memory spaces.

Traces from NVBit-based tools name instructions by their SASS mnemonic with
modifiers after dots (``IMAD.WIDE.U32``, ``LDG.E.128.CONSTANT``, ``MUFU.EX2``).
The class is decided by the base mnemonic, refined by a modifier where the
modifier changes what the instruction does (``IMAD.MOV`` is a move,
``IMAD.SHL`` a shift, ``MUFU.<fn>`` names the special function).  Uniform
datapath forms (``UIADD3``, ``ULOP3``...) get the class of their vector twin.
Anything not listed is ``other``: the mix stays complete even for opcodes a new
architecture adds.
"""

from __future__ import annotations

_BASE = {
    # 32-bit float
    "FFMA": "fp32_fma", "FFMA32I": "fp32_fma", "FADD": "fp32_add", "FADD32I": "fp32_add",
    "FMUL": "fp32_mul", "FMUL32I": "fp32_mul", "FCHK": "fp32_div",
    # 16-bit float (paired)
    "HFMA2": "fp16_fma", "HFMA2MMA": "fp16_fma", "HADD2": "fp16_add", "HMUL2": "fp16_mul",
    # 64-bit float
    "DFMA": "fp64_fma", "DADD": "fp64_add", "DMUL": "fp64_mul",
    # integer arithmetic
    "IMAD": "int_mul", "IMUL": "int_mul", "IMUL32I": "int_mul", "IMAD32I": "int_mul",
    "IADD3": "int_add", "IADD": "int_add", "IADD32I": "int_add", "IABS": "int_add",
    "LEA": "int_add", "ISCADD": "int_add", "IDP": "int_mul", "IDP4A": "int_mul",
    # bit manipulation
    "LOP3": "bitwise", "LOP": "bitwise", "LOP32I": "bitwise", "SHF": "bitwise", "SHL": "bitwise",
    "SHR": "bitwise", "BFE": "bitwise", "BFI": "bitwise", "POPC": "bitwise", "FLO": "bitwise",
    "BREV": "bitwise", "BMSK": "bitwise", "PLOP3": "bitwise", "PRMT": "bitwise",
    # compare / select / min-max
    "ISETP": "compare", "FSETP": "compare", "DSETP": "compare", "HSETP2": "compare",
    "ISET": "compare", "FSET": "compare", "HSET2": "compare", "SEL": "compare", "FSEL": "compare",
    "IMNMX": "compare", "FMNMX": "compare", "HMNMX2": "compare", "DMNMX": "compare",
    "ICMP": "compare", "FCMP": "compare", "PSETP": "compare", "VIMNMX": "compare",
    # conversions
    "I2F": "convert", "F2I": "convert", "F2F": "convert", "I2I": "convert", "F2FP": "convert",
    "FRND": "convert", "I2IP": "convert", "DRND": "convert",
    # control flow
    "BRA": "branch", "BRX": "branch", "JMP": "branch", "JMX": "branch", "CALL": "branch",
    "RET": "branch", "EXIT": "branch", "BSSY": "branch", "BSYNC": "branch", "BREAK": "branch",
    "WARPSYNC": "branch", "KILL": "branch", "BPT": "branch",
    # synchronisation
    "BAR": "barrier", "MEMBAR": "barrier", "ERRBAR": "barrier", "CCTL": "other",
    # memory
    "LDG": "load", "LD": "load", "LDS": "load", "LDL": "load", "LDC": "load", "LDSM": "load",
    "LDGSTS": "load", "TEX": "load", "TLD": "load", "TLD4": "load", "TXD": "load", "SULD": "load",
    "STG": "store", "ST": "store", "STS": "store", "STL": "store", "SUST": "store",
    "ATOM": "atomic", "ATOMG": "atomic", "ATOMS": "atomic", "RED": "atomic", "REDG": "atomic",
    "SUATOM": "atomic", "SURED": "atomic",
}

#: Memory instructions and the trace v1 space their addresses belong to.
#: Generic ``LD``/``ST``/``ATOM`` are taken as global (see docs/foreign-formats.md).
SPACE = {
    "LDG": "global", "STG": "global", "ATOMG": "global", "RED": "global", "REDG": "global",
    "LDGSTS": "global", "LD": "global", "ST": "global", "ATOM": "global",
    "LDS": "local", "STS": "local", "ATOMS": "local", "LDSM": "local",
    "LDL": "private", "STL": "private",
    "TEX": "image", "TLD": "image", "TLD4": "image", "TXD": "image", "SULD": "image",
    "SUST": "image", "SUATOM": "image", "SURED": "image",
    "LDC": "constant",
}

#: ``MUFU.<function>`` -> ``math_<name>`` (names as in OpenCL where one exists).
_MUFU = {"EX2": "exp2", "LG2": "log2", "RSQ": "rsqrt", "RSQ64H": "rsqrt", "RCP": "rcp",
         "RCP64H": "rcp", "SIN": "sin", "COS": "cos", "SQRT": "sqrt", "TANH": "tanh"}


def base_mnemonic(opcode: str) -> str:
    """``IMAD.WIDE.U32`` -> ``IMAD``."""
    return opcode.split(".", 1)[0].upper()


def _known_base(base: str) -> str:
    if base not in _BASE and base.startswith("U") and base[1:] in _BASE:
        return base[1:]  # uniform-datapath twin
    return base


def opclass(opcode: str) -> str:
    """The trace v1 class of one SASS opcode (``other`` when unknown)."""
    parts = opcode.upper().split(".")
    base = _known_base(parts[0])
    mods = set(parts[1:])
    if base == "MUFU":
        fn = parts[1] if len(parts) > 1 else ""
        return "math_" + _MUFU.get(fn, fn.lower() or "special")
    if base == "IMAD":
        if "MOV" in mods:
            return "other"
        if "SHL" in mods:
            return "bitwise"
        if "IADD" in mods:
            return "int_add"
    return _BASE.get(base, "other")


def op_of(opcode: str) -> str | None:
    """``load``/``store``/``atomic`` for a memory opcode, else None."""
    cls = _BASE.get(_known_base(base_mnemonic(opcode)))
    return cls if cls in ("load", "store", "atomic") else None


def space_of(opcode: str) -> str | None:
    """The trace v1 memory space of a memory opcode, else None."""
    return SPACE.get(base_mnemonic(opcode))
