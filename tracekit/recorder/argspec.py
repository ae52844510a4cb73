"""The ``--arg`` mini-language of ``tracekit record KERNEL.cl``.

One ``--arg`` per kernel argument, in order (docs/recording.md has the table):

* buffers: ``float[1024]`` (zeros), ``float[1024]=0.5`` (constant),
  ``int[256]=range`` / ``range:START`` / ``range:START:STEP``,
  ``float[4096]=rand`` / ``rand:SEED`` / ``rand:SEED:LO:HI`` (seeded uniform),
  ``float[1024]=@x.npy`` or just ``@x.npy`` (contents of a NumPy file);
* scalars: ``int:1024``, ``float:0.5``, ``float4:1,2,3,4``;
* local memory: ``local:4096`` (bytes) or ``local:float[256]``;
* images and samplers: ``img:rgba:float:64,64=rand`` and ``sampler:clamp_to_edge,nearest``
  (:mod:`.argspec_images`).

Element types are OpenCL's: char uchar short ushort int uint long ulong half
float double, optionally with a vector width 2, 3, 4, 8 or 16.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np

from tracekit.errors import RecordError
from tracekit.recorder.argspec_images import parse_image, parse_sampler
from tracekit.recorder.argvalue import ArgValue

_BASE = {"char": np.int8, "uchar": np.uint8, "short": np.int16, "ushort": np.uint16,
         "int": np.int32, "uint": np.uint32, "long": np.int64, "ulong": np.uint64,
         "half": np.float16, "float": np.float32, "double": np.float64}
_NP_TO_CL = {np.dtype(v).str: k for k, v in _BASE.items()}
_TYPE_RE = re.compile(r"^(char|uchar|short|ushort|int|uint|long|ulong|half|float|double)(2|3|4|8|16)?$")
_BUF_RE = re.compile(r"^(\w+)\[(\d*)\](?:=(.*))?$")
MAX_BUFFER_BYTES = 1 << 30


def _type(name: str, where: str) -> tuple[np.dtype, int, int]:
    """(base dtype, lanes, lanes in memory) of an OpenCL type name."""
    m = _TYPE_RE.match(name)
    if not m:
        raise RecordError(f"{where}: unknown element type '{name}'",
                          hint="use char, uchar, short, ushort, int, uint, long, ulong, half, float or "
                               "double, optionally with a vector width (float4)")
    lanes = int(m.group(2) or 1)
    return np.dtype(_BASE[m.group(1)]), lanes, 4 if lanes == 3 else lanes


def _numbers(text: str, where: str, what: str) -> list[float]:
    out: list[float] = []
    for x in text.split(","):
        try:
            out.append(int(x, 0))
        except ValueError:
            try:
                out.append(float(x))
            except ValueError:
                raise RecordError(f"{where}: '{text}' is not {what}") from None
    return out


def _fits(values: list[float], dtype: np.dtype, where: str, what: str) -> None:
    """Each value must be representable as an element of ``dtype`` (whole and in range for integers)."""
    name = _NP_TO_CL[dtype.str]
    for v in values:
        if dtype.kind in "iu":
            if isinstance(v, float) and not (math.isfinite(v) and v.is_integer()):
                raise RecordError(f"{where}: {what} {v!r} is not a whole number, as {name} elements are")
            info = np.iinfo(dtype)
            if not info.min <= v <= info.max:
                raise RecordError(f"{where}: {what} {v:g} does not fit in {name} ({info.min} .. {info.max})")
        elif math.isfinite(v) and abs(v) > float(np.finfo(dtype).max):
            top = float(np.finfo(dtype).max)
            raise RecordError(f"{where}: {what} {v:g} does not fit in {name} (at most {top:g})")


def _fill(init: str, dtype: np.dtype, n: int, where: str, base_dir: Path) -> np.ndarray:
    head, _, rest = init.partition(":")
    params = rest.split(":") if rest else []
    is_float = dtype.kind == "f"
    if head == "range":
        vals = _numbers(",".join(params), where, "START[:STEP]") if params else []
        if len(vals) > 2:
            raise RecordError(f"{where}: range takes START or START:STEP, got '{init}'")
        start = vals[0] if vals else 0
        step = vals[1] if len(vals) > 1 else 1
        if not is_float and isinstance(step, float) and not (math.isfinite(step) and step.is_integer()):
            raise RecordError(f"{where}: range step {step!r} is not a whole number, as "
                              f"{_NP_TO_CL[dtype.str]} elements are")
        _fits([start, start + step * max(n - 1, 0)], dtype, where, "range value")
        return (start + step * np.arange(n, dtype=np.float64 if is_float else np.int64)).astype(dtype)
    if head == "rand":
        vals = _numbers(",".join(params), where, "SEED[:LO:HI]") if params else []
        if len(vals) not in (0, 1, 3):
            raise RecordError(f"{where}: rand takes SEED or SEED:LO:HI, got '{init}'")
        seed = vals[0] if vals else 0
        if isinstance(seed, float) or seed < 0:
            raise RecordError(f"{where}: the seed of rand is a whole number >= 0, got {seed!r}")
        lo, hi = (vals[1], vals[2]) if len(vals) == 3 else ((0.0, 1.0) if is_float else (0, 100))
        if not lo < hi:
            raise RecordError(f"{where}: rand's range {lo:g}:{hi:g} is empty; give LO below HI")
        _fits([lo, hi if is_float else hi - 1], dtype, where, "rand bound")
        rng = np.random.default_rng(seed)
        if is_float:
            return rng.uniform(lo, hi, n).astype(dtype)
        return rng.integers(int(lo), int(hi), n, endpoint=False).astype(dtype)
    if init.startswith("@"):
        data = _npy(init[1:], where, base_dir)
        if data.dtype.kind not in "biuf":
            raise RecordError(f"{where}: the NumPy file holds {data.dtype} values, not numbers")
        if data.size and dtype.kind in "iu" and data.dtype.kind == "f":
            _fits([float(data.min()), float(data.max())], dtype, where, "value in the file")
        elif data.size and dtype.kind in "iu":
            _fits([int(data.min()), int(data.max())], dtype, where, "value in the file")
        return data.astype(dtype).reshape(-1)
    vals = _numbers(init, where, "a number, range, rand or @FILE.npy")
    if len(vals) != 1:
        raise RecordError(f"{where}: a buffer's constant fill is one number, got '{init}'")
    _fits(vals, dtype, where, "value")
    return np.full(n, vals[0], dtype=dtype)


def _npy(path: str, where: str, base_dir: Path) -> np.ndarray:
    p = Path(path)
    if not p.is_absolute():
        p = base_dir / p
    try:
        return np.load(p, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise RecordError(f"{where}: cannot read the NumPy file {p} ({exc})") from None


def parse_arg(text: str, index: int, base_dir: Path = Path(".")) -> ArgValue:
    """Parse one ``--arg`` value; errors name the argument and what was expected."""
    where = f"--arg {index} '{text}'"
    text = text.strip()
    if text.startswith("img:"):
        return parse_image(text, where, base_dir, _fill)
    if text.startswith("sampler:"):
        return parse_sampler(text, where)
    if text.startswith("local:"):
        spec = text[6:]
        m = _BUF_RE.match(spec)
        if m:
            dtype, _, mem = _type(m.group(1), where)
            nbytes = dtype.itemsize * mem * int(m.group(2) or 0)
        elif spec.isdigit():
            nbytes = int(spec)
        else:
            raise RecordError(f"{where}: local memory is local:BYTES or local:TYPE[COUNT]")
        if nbytes <= 0:
            raise RecordError(f"{where}: local memory size must be positive")
        if nbytes > MAX_BUFFER_BYTES:
            raise RecordError(f"{where}: {nbytes} bytes of local memory is more than the 1 GiB an "
                              "argument may take")
        return ArgValue("local", "", nbytes, text=text)
    if text.startswith("@"):
        arr = _npy(text[1:], where, base_dir)
        cl = _NP_TO_CL.get(arr.dtype.newbyteorder("<").str if arr.dtype.byteorder == ">" else arr.dtype.str)
        if cl is None:
            raise RecordError(f"{where}: NumPy dtype {arr.dtype} has no OpenCL element type")
        data = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<")).reshape(-1)
        return ArgValue("buffer", cl, data.nbytes, data, text)
    m = _BUF_RE.match(text)
    if m:
        dtype, lanes, mem = _type(m.group(1), where)
        init = m.group(3)
        if not m.group(2):
            if not (init and init.startswith("@")):
                raise RecordError(f"{where}: give the element count, e.g. {m.group(1)}[1024]")
            data = _fill(init, dtype, 0, where, base_dir)
            if data.size % mem:
                raise RecordError(f"{where}: the file holds {data.size} values, not a whole number of "
                                  f"{m.group(1)} elements")
            return ArgValue("buffer", m.group(1), data.nbytes, data, text)
        count = int(m.group(2))
        if count == 0:
            raise RecordError(f"{where}: a buffer needs at least one element")
        if init == "":
            raise RecordError(f"{where}: nothing follows '='; give a value, range, rand or @FILE.npy")
        n = count * mem
        if n * dtype.itemsize > MAX_BUFFER_BYTES:
            raise RecordError(f"{where}: {n * dtype.itemsize} bytes is more than the 1 GiB a buffer may take")
        data = None
        if init:
            data = _fill(init, dtype, n, where, base_dir)
            if data.size != n:
                raise RecordError(f"{where}: the file holds {data.size} values, expected {n} "
                                  f"({count} x {m.group(1)})")
        return ArgValue("buffer", m.group(1), n * dtype.itemsize, data, text)
    type_name, sep, value = text.partition(":")
    if sep and _TYPE_RE.match(type_name):
        dtype, lanes, mem = _type(type_name, where)
        vals = _numbers(value, where, f"a {type_name} value")
        if len(vals) == 1:
            vals = vals * lanes
        if len(vals) != lanes:
            raise RecordError(f"{where}: {type_name} needs {lanes} values, got {len(vals)}")
        _fits(vals, dtype, where, "value")
        data = np.array(vals + [0] * (mem - lanes), dtype=dtype)
        return ArgValue("scalar", type_name, data.nbytes, data, text)
    raise RecordError(f"{where}: not a buffer, scalar or local-memory argument",
                      hint="examples: float[1024]=rand, int:1024, local:4096, img:rgba:float:64,64=rand, "
                           "sampler:clamp_to_edge,nearest (see docs/recording.md)")
