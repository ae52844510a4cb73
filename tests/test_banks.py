"""Local-memory bank model against the guides' worked examples."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analyzers.replay.banks import bank_cycles, bank_cycles_frame
from tracekit.targets.model import LocalMemorySpec

# powervr-rogue-compute-recommendations.txt, "Common Store": 4 banks of 128 bits, 16 lanes a cycle
POWERVR = LocalMemorySpec(size_bytes=4096, banks=4, bank_width_bytes=16, lanes_per_cycle=16)
# intel-processor-graphics-opencl-guide.txt, "Memory Hierarchy" / "__local Memory": 16 banks x 4 B,
# read broadcast, and the summary's strict write rule
INTEL = LocalMemorySpec(size_bytes=65536, banks=16, bank_width_bytes=4, lanes_per_cycle=16,
                        read_broadcast=True, write_same_address_conflicts=True)
NVIDIA = LocalMemorySpec(size_bytes=49152, banks=32, bank_width_bytes=4, lanes_per_cycle=32)


def compiled(addrs, spec, *, size=4, write=False, lanes=None):
    """Cycles and degree of one request through the compiled kernel."""
    n = len(addrs)
    lane = np.arange(n, dtype=np.int64) if lanes is None else np.asarray(lanes, np.int64)
    order = np.argsort(lane, kind="stable")
    ptr = np.array([0, n], np.int64)
    cyc, deg = bank_cycles(order, ptr, lane, np.asarray(addrs, np.int64), np.full(n, size, np.int64),
                           np.full(n, write), np.ones(1, bool), spec.banks, spec.bank_width_bytes,
                           spec.lanes_per_cycle, spec.read_broadcast, spec.write_same_address_conflicts,
                           float(spec.write_cost_factor))
    return float(cyc[0]), int(deg[0])


def reference(addrs, spec, *, size=4, write=False):
    n = len(addrs)
    df = bank_cycles_frame(np.zeros(n), np.arange(n), addrs, np.full(n, size), np.full(n, write), spec)
    return float(df["cycles"].iloc[0]), int(df["conflict_degree"].iloc[0])


@pytest.mark.parametrize("impl", [compiled, reference])
def test_powervr_common_store_examples(impl):
    lanes = np.arange(16)
    # stride of one float: 16 threads served in one cycle
    assert impl(4 * lanes, POWERVR) == (1.0, 1)
    # stride of 16 floats (512 bits): all in bank 0, 16-way clash, 16 cycles
    assert impl(64 * lanes, POWERVR) == (16.0, 16)
    # a float4 per thread: four-way clash for 16 threads, 4 cycles
    assert impl(16 * lanes, POWERVR, size=16) == (4.0, 4)


def test_powervr_full_task_of_32_is_per_16_threads():
    lanes = np.arange(32)
    assert compiled(4 * lanes, POWERVR) == (2.0, 1)
    assert compiled(64 * lanes, POWERVR) == (32.0, 16)
    assert compiled(16 * lanes, POWERVR, size=16) == (8.0, 4)


@pytest.mark.parametrize("impl", [compiled, reference])
@pytest.mark.parametrize("index, bandwidth", [
    (lambda g: g, 1.0),                 # case 1: myArray[gid]
    (lambda g: g + 1, 1.0),             # case 2: myArray[gid + 1]
    (lambda g: 15 - g, 1.0),            # case 3: reversed
    (lambda g: g & ~1, 1.0),            # case 4: pairs share an address (broadcast)
    (lambda g: g * 2, 0.5),             # case 5: two addresses per bank
    (lambda g: g * 16, 1 / 16),         # case 6: all in one bank
    (lambda g: g * 17, 1.0),            # case 7: padded stride
])
def test_intel_slm_cases(impl, index, bandwidth):
    gid = np.arange(16)
    cycles, degree = impl(4 * index(gid), INTEL)
    assert 1.0 / cycles == bandwidth
    assert degree == round(1 / bandwidth)


def test_intel_strict_write_rule_and_lenient_variant():
    same = np.zeros(16, np.int64)
    assert compiled(same, INTEL, write=True) == (16.0, 16)
    assert reference(same, INTEL, write=True) == (16.0, 16)
    lenient = LocalMemorySpec(65536, 16, 4, 16, write_same_address_conflicts=False)
    assert compiled(same, lenient, write=True) == (1.0, 1)
    assert compiled(same, INTEL, write=False) == (1.0, 1)  # reads of one address broadcast


def test_nvidia_shared_memory():
    lanes = np.arange(32)
    assert compiled(4 * lanes, NVIDIA) == (1.0, 1)
    assert compiled(8 * lanes, NVIDIA) == (2.0, 2)
    assert compiled(128 * lanes, NVIDIA) == (32.0, 32)
    assert compiled(8 * lanes, NVIDIA, size=8) == (2.0, 2)  # a double per lane: two words each


def test_write_cost_factor_scales_writes():
    spec = LocalMemorySpec(4096, 4, 16, 16, write_cost_factor=4.0)
    assert compiled(4 * np.arange(16), spec, write=True) == (4.0, 1)
    assert compiled(4 * np.arange(16), spec, write=False) == (1.0, 1)


specs = st.sampled_from([POWERVR, INTEL, NVIDIA,
                         LocalMemorySpec(4096, 8, 8, 8, read_broadcast=False)])


@settings(max_examples=60, deadline=None)
@given(spec=specs, addrs=st.lists(st.integers(0, 4095), min_size=1, max_size=48),
       size=st.sampled_from([1, 2, 4, 8, 16]), write=st.booleans())
def test_compiled_matches_reference(spec, addrs, size, write):
    addrs = np.asarray(addrs, np.int64) // size * size
    assert compiled(addrs, spec, size=size, write=write) == reference(addrs, spec, size=size, write=write)


def test_local_data_path_limits_requests_the_banks_serve_fast():
    """local_memory.bandwidth_bytes_per_cycle: a request takes at least its lanes' bytes over the data
    path's rate, shared addresses included (ArchProbe's Adreno 640: 88 bytes a cycle)."""
    from analyzers.replay.memory import local_data_cycles

    # two requests of 64 lanes reading 16 bytes each, one local and one not, then an empty one
    order = np.arange(128)
    req_ptr = np.array([0, 64, 128, 128])
    size = np.full(128, 16)
    banks = np.array([8, 8, 0])                     # what the banks alone would take
    is_local = np.array([True, False, True])
    got = local_data_cycles(banks, order, req_ptr, size, is_local, 88.0)
    assert got.tolist() == [12, 8, 0]               # ceil(1024 / 88) for the local one only
    slow_banks = local_data_cycles(np.array([20, 8, 0]), order, req_ptr, size, is_local, 88.0)
    assert slow_banks.tolist() == [20, 8, 0]     # the banks' conflicts bind when they are slower
