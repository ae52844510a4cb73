"""Reading ocloc's zebin container: each kernel's machine code and its ``.ze_info``.

A zebin is an ELF file.  Section ``.text.<kernel>`` holds a kernel's machine
code; section ``.ze_info`` is YAML with one entry per kernel whose
``execution_env`` gives the SIMD width the compiler chose (``simd_size``), the
registers each hardware thread is given (``grf_count``), shared local memory
and barriers, and whose ``per_thread_memory_buffers`` list the scratch space a
thread needs (register spills and private arrays the compiler put in memory).
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import yaml
from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile

from tracekit.errors import TracekitError

TEXT_PREFIX = ".text."


@dataclass(frozen=True)
class KernelInfo:
    """What ``.ze_info`` says about one compiled kernel."""

    name: str
    simd_width: int
    grf_count: int
    slm_bytes: int
    barrier_count: int
    scratch_bytes: int          # per hardware thread, every scratch buffer together
    private_memory: bool        # the kernel addresses private memory through a stateless base
    code: bytes


def _env_int(env: dict, key: str) -> int:
    value = env.get(key, 0)
    return int(value) if isinstance(value, (int, float)) else 0


def read_zebin(data: bytes, *, path: str = "ocloc output") -> list[KernelInfo]:
    """Kernels of one zebin, in the order ``.ze_info`` lists them."""
    try:
        elf = ELFFile(io.BytesIO(data))
        texts = {s.name[len(TEXT_PREFIX):]: s.data() for s in elf.iter_sections()
                 if s.name.startswith(TEXT_PREFIX)}
        info = elf.get_section_by_name(".ze_info")
        doc = yaml.safe_load(info.data().decode("utf-8", "replace")) if info is not None else None
    except (ELFError, yaml.YAMLError, UnicodeError) as exc:
        raise TracekitError(f"not a readable zebin ({exc})", path=path) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("kernels"), list):
        raise TracekitError("the zebin has no .ze_info kernel list", path=path)
    out = []
    for entry in doc["kernels"]:
        name = str(entry.get("name", ""))
        env = entry.get("execution_env") or {}
        buffers = entry.get("per_thread_memory_buffers") or []
        scratch = sum(int(b.get("size", 0)) for b in buffers if b.get("type") == "scratch")
        args = entry.get("payload_arguments") or []
        private = any(a.get("arg_type") == "private_base_stateless" for a in args)
        if name not in texts:
            raise TracekitError(f"the zebin lists kernel '{name}' but holds no .text.{name} section",
                                path=path)
        out.append(KernelInfo(name=name, simd_width=_env_int(env, "simd_size"),
                              grf_count=_env_int(env, "grf_count"), slm_bytes=_env_int(env, "slm_size"),
                              barrier_count=_env_int(env, "barrier_count"), scratch_bytes=scratch,
                              private_memory=private, code=texts[name]))
    return out
