"""Column-name presets for ``tracekit ingest``: how other tools name the trace v1 columns.

A preset maps each canonical column to the names other exports use for it, and
maps the values of ``space`` and ``op`` onto the trace vocabulary.  An explicit
``--map canonical=source`` always wins over a preset; a column already named
canonically wins over an alias.  Names are compared without regard to case.

Two presets ship:

``flat``
    Generic per-access dumps written by hand-made tracers and simulators that use
    OpenCL words: ``tid``/``lid`` for the local id, ``wg`` for the work-group,
    ``addr``, ``bytes``, ``pc`` ...  Values ``read``/``write``/``ld``/``st`` are
    understood.

``cuda``
    Dumps that speak CUDA, such as per-access logs from GPGPU-Sim/Accel-Sim or
    NVBit tools: ``ctaid``/``block`` for the work-group, ``tid``/``thread`` for the
    work-item, ``pc`` for the site, and SASS-style operations (``LDG.E.64``,
    ``STS``, ``ATOMG``, ``RED``).  It exists because CUDA and OpenCL use the same
    words for different memories: CUDA *shared* memory is OpenCL *local* memory,
    and CUDA *local* memory (per-thread spills) is OpenCL *private* memory.  Taking
    the ``flat`` preset for such a dump would file per-thread spills as
    work-group local memory and hide them from the bank-conflict model.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: Columns a source may provide.  The ``*_x/_y/_z`` forms are per-dimension ids that
#: ingest linearises (dimension 0 fastest) using the launch's sizes.
TARGETS = ("kernel", "launch", "group", "item", "site", "seq", "space", "op", "address", "size",
           "buffer", "issue", "group_x", "group_y", "group_z", "item_x", "item_y", "item_z")


@dataclass(frozen=True)
class Preset:
    name: str
    description: str
    aliases: dict[str, tuple[str, ...]]
    space_values: dict[str, str] = field(default_factory=dict)
    op_values: dict[str, str] = field(default_factory=dict)
    #: Drop SASS-style modifiers (``LDG.E.64`` -> ``ldg``) before looking values up.
    strip_modifiers: bool = False

    def canonical_op(self, raw: str) -> str:
        v = raw.strip().lower()
        return v.split(".", 1)[0] if self.strip_modifiers else v

    canonical_space = canonical_op


_COMMON_OPS = {"read": "load", "write": "store", "ld": "load", "st": "store", "r": "load",
               "w": "store", "atom": "atomic", "rmw": "atomic"}

_FLAT = Preset(
    name="flat",
    description="generic per-access dumps with OpenCL names (tid/lid, wg, addr, bytes, pc)",
    aliases={
        "kernel": ("kernel_name", "kname", "function"),
        "launch": ("launch_id", "enqueue", "dispatch", "dispatch_id"),
        "group": ("wg", "workgroup", "work_group", "group_id", "wg_id", "gid_linear"),
        "item": ("tid", "lid", "local_id", "local_linear_id", "thread", "wi"),
        "site": ("pc", "inst", "instruction", "instr", "site_id"),
        "seq": ("sequence", "index_in_item", "n"),
        "space": ("mem", "addrspace", "address_space", "memory", "mem_space"),
        "op": ("kind", "type", "access", "rw", "operation"),
        "address": ("addr", "offset", "ptr"),
        "size": ("bytes", "width", "nbytes", "access_size"),
        "buffer": ("arg", "arg_index", "buffer_id"),
        "group_x": ("group_id_x", "wg_x"), "group_y": ("group_id_y", "wg_y"),
        "group_z": ("group_id_z", "wg_z"),
        "item_x": ("local_id_x", "lid_x", "tid_x"), "item_y": ("local_id_y", "lid_y", "tid_y"),
        "item_z": ("local_id_z", "lid_z", "tid_z"),
    },
    space_values={"shared": "local", "const": "constant", "priv": "private", "img": "image",
                  "texture": "image"},
    op_values=dict(_COMMON_OPS),
)

_SASS_OPS = {
    **_COMMON_OPS,
    **{f"ld{s}": "load" for s in ("g", "s", "l", "c", "u", "sm", "gsts")},
    **{f"st{s}": "store" for s in ("g", "s", "l")},
    "tex": "load", "tld": "load", "tld4": "load", "suld": "load", "sust": "store",
    "atom": "atomic", "atomg": "atomic", "atoms": "atomic", "red": "atomic", "redg": "atomic",
}

_CUDA = Preset(
    name="cuda",
    description="CUDA-worded dumps (GPGPU-Sim/Accel-Sim, NVBit): ctaid, tid, pc, SASS ops, shared/local",
    aliases={
        "kernel": ("kernel_name", "kname", "function", "name"),
        "launch": ("kernel_id", "launch_id", "grid_id", "grid", "uid"),
        "group": ("ctaid", "cta", "cta_id", "block", "block_id", "blockid", "ctaid_linear"),
        "item": ("tid", "thread", "thread_id", "threadid", "tid_linear"),
        "site": ("pc", "inst_pc", "sass_pc", "inst"),
        "seq": ("sequence", "dyn_id", "n"),
        "space": ("mem_space", "space_name", "memspace", "addrspace", "segment"),
        "op": ("opcode", "inst_op", "instruction", "sass"),
        "address": ("addr", "mem_addr", "effective_address", "ea"),
        "size": ("bytes", "width", "access_size", "data_size"),
        "buffer": ("arg", "param"),
        "group_x": ("ctaid_x", "ctaid.x", "blockidx.x", "blockidx_x", "cta_x"),
        "group_y": ("ctaid_y", "ctaid.y", "blockidx.y", "blockidx_y", "cta_y"),
        "group_z": ("ctaid_z", "ctaid.z", "blockidx.z", "blockidx_z", "cta_z"),
        "item_x": ("tid_x", "tid.x", "threadidx.x", "threadidx_x"),
        "item_y": ("tid_y", "tid.y", "threadidx.y", "threadidx_y"),
        "item_z": ("tid_z", "tid.z", "threadidx.z", "threadidx_z"),
    },
    # CUDA "local" is per-thread memory: OpenCL private.  CUDA "shared" is OpenCL local.
    space_values={"shared": "local", "local": "private", "const": "constant", "param": "constant",
                  "tex": "image", "texture": "image", "surf": "image", "surface": "image",
                  "generic": "global", "gmem": "global", "smem": "local", "lmem": "private",
                  "cmem": "constant"},
    op_values=_SASS_OPS,
    strip_modifiers=True,
)

PRESETS: dict[str, Preset] = {p.name: p for p in (_FLAT, _CUDA)}
#: Used when no preset is named: canonical names, plus the generic aliases.
DEFAULT = _FLAT
