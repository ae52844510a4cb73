"""Intel Gen machine code for a trace's kernels, built offline with Intel's own compiler.

``ocloc`` (Debian ``intel-opencl-icd``) compiles OpenCL C for a named Intel GPU
without the GPU; ``iga64`` (``libigc-tools``) disassembles the result.  This
package runs them (:mod:`.tools`), reads the compiler's kernel descriptions
(:mod:`.zebin`) and line tables (:mod:`.debuglines`), parses and labels the
listing (:mod:`.listing`, :mod:`.classes`), ties it together per kernel
(:mod:`.compile`), stores it with a trace (:mod:`.table`, :mod:`.attach`).
"""

from __future__ import annotations

from tracekit.isa.compile import KernelISA, compile_source
from tracekit.isa.tools import IsaCompileError, tools_available

__all__ = ["IsaCompileError", "KernelISA", "compile_source", "tools_available"]
