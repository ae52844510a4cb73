"""Target files: shipped ones load and cite every number; bad files fail with file, key and rule."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tracekit.cli import app
from tracekit.errors import TargetError
from tracekit.targets import list_targets, load_target, target_path
from tracekit.targets.throughput import format_value, implied_alu_cycles, peak_throughput
from tracekit.trace.schema import OPCLASSES

SHIPPED = list_targets()
G6400 = target_path("powervr-g6400").read_text()


def test_required_targets_are_shipped():
    families = {load_target(n).family for n in SHIPPED}
    assert {"powervr-g6400", "powervr-gx6650", "adreno-640", "adreno-740", "intel-hd530",
            "intel-iris-plus-g7", "nvidia-h200"} <= set(SHIPPED)
    assert {"Adreno 6xx", "Adreno 7xx", "Gen9 GT2 (Skylake)"} <= families


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_target_loads_with_its_file_name(name):
    t = load_target(name)
    assert t.name == name
    assert t.simd.width in t.simd.widths
    for c in t.caches:
        assert c.sets * c.line_bytes * c.ways == c.size_bytes


@pytest.mark.parametrize("name", SHIPPED)
def test_every_number_of_a_shipped_target_has_a_source(name):
    t = load_target(name)
    missing = [k for k in ("compute_units", "clock_mhz", "transaction_bytes") if k not in t.sources]
    unread = set() if t.simd.pack_small_groups_up_to else {"simd.pack_slot_min_items"}  # no packing
    # latency refinements a file switches on by giving them; left out, they are 0 and never read
    off = {"latency_tail_cycles", "latency_tail_ns", "loaded_latency_ns", "loaded_busy_share",
           "dependent_issue_cycles", "store_bandwidth_bytes_per_cycle", "fetch_bytes", "partition_copy_share"}
    # loop overlap is off at its defaults (no overlap, no unrolling)
    off_at = {"batched_load_overlap": 1.0, "batched_load_unroll": 1, "batched_load_body": 0}
    for sec in ("simd", "local_memory", "dram", "occupancy"):
        missing += [f"{sec}.{f.name}" for f in fields(getattr(t, sec))
                    if f"{sec}.{f.name}" not in t.sources and f"{sec}.{f.name}" not in unread
                    and not (f.name in off and getattr(getattr(t, sec), f.name) == 0)
                    and not (f.name in off_at and getattr(getattr(t, sec), f.name) == off_at[f.name])]
    missing += [] if "constant_loads" in t.sources else ["constant_loads"]
    for k, c in enumerate(t.caches):
        # only the first level is priced per request; the tag and bank rates only then
        unread = ({"cost_unit"} if k else set()) | (
            set() if c.cost_unit == "request" else {"lines_per_cycle", "data_banks", "data_bank_width_bytes"})
        missing += [f"caches.{c.name}.{f.name}" for f in fields(c)
                    if f.name not in unread | {"name"} and f"caches.{c.name}.{f.name}" not in t.sources
                    and not (f.name in off and getattr(c, f.name) == 0)
                    and not (f.name == "sustained_share" and c.sustained_share == 1.0)]  # rates are peaks
    if t.constant_cache is not None:
        missing += [f"constant_cache.{f.name}" for f in fields(t.constant_cache)
                    if f"constant_cache.{f.name}" not in t.sources]
    missing += [f"alu_cycles.{k}" for k in t.alu_cycles if f"alu_cycles.{k}" not in t.sources]
    assert t.texture is not None  # every shipped target says how it reads images
    missing += [f"texture.{k}" for k in ("tile_bytes", "tile_rows") if f"texture.{k}" not in t.sources]
    for c in t.texture.caches:
        missing += [f"texture_caches.{c.name}.{f.name}" for f in fields(c)
                    if f.name != "name" and f"texture_caches.{c.name}.{f.name}" not in t.sources]
    assert missing == []
    assert all(s.strip() for s in t.sources.values())
    # assumed values carry their reason in the assumptions table as well
    for key, src in t.sources.items():
        if src.startswith("assumed:"):
            assert t.assumptions[key]


@pytest.mark.parametrize("name", SHIPPED)
def test_alu_cycles_cover_the_opclass_vocabulary(name):
    t = load_target(name)
    assert set(OPCLASSES) | {"math_default"} <= set(t.alu_cycles) | set(t.unsupported)
    assert not set(t.alu_cycles) & set(t.unsupported)


def test_g6400_peak_table_equals_the_guide():
    t = load_target("powervr-g6400")
    got = [(r.unit, format_value(r.value)) for r in peak_throughput(t)]
    assert got == [("GFLOPS", "192"), ("GFLOPS", "128"), ("GFLOPS", "64"), ("GFLOPS", "64"),
                   ("GFLOPS", "8"), ("GFLOPS", "16"),
                   ("GILOPS", "64"), ("GILOPS", "32"), ("GILOPS", "32"), ("GILOPS", "1.07")]
    # the table is computed from 0.5 GHz x 4 USCs x 16 pipes, not stored
    assert t.clock_mhz == 500 and t.compute_units == 4 and t.simd.lanes == 16
    assert t.peak_throughput and all(not hasattr(r, "value") for r in t.peak_throughput)


def test_g6400_alu_cycles_agree_with_its_peak_table():
    t = load_target("powervr-g6400")
    implied = implied_alu_cycles(t)
    assert set(implied) >= {"fp32_fma", "fp32_div", "int_div", "int_add"}
    for op, cycles in implied.items():
        assert t.alu_cycles[op] == pytest.approx(cycles), op


def test_g6400_guide_numbers():
    t = load_target("powervr-g6400")
    assert t.simd.width == 32 and t.simd.pack_small_groups_up_to == 16
    lm = t.local_memory
    assert (lm.banks, lm.bank_width_bytes, lm.lanes_per_cycle) == (4, 16, 16)
    assert all(c.line_bytes == 128 for c in t.caches)
    # integer division: 30 cycles per lane instruction, a 32-thread task on 16 pipes
    assert t.alu_cycles["int_div"] == 30 * 32 / 16
    # float division: 4 cycles by default, 2 with fast-relaxed math
    assert t.alu_cycles["fp32_div"] == 2 * t.alu_cycles_fast_math["fp32_div"]
    classes = t.math_classes
    assert t.alu_cycles["math_sin"] == classes["low"].cycles
    assert t.alu_cycles["math_exp"] == classes["medium"].cycles
    assert t.alu_cycles["math_pow"] == classes["high"].cycles


def test_intel_gen9_guide_numbers():
    t = load_target("intel-hd530")
    assert t.simd.widths == (8, 16, 32)
    assert t.transaction_bytes == 64 and t.cache("L3").line_bytes == 64
    lm = t.local_memory
    assert (lm.size_bytes, lm.banks, lm.bank_width_bytes) == (65536, 16, 4)
    assert lm.read_broadcast and lm.write_same_address_conflicts
    occ = t.occupancy
    assert (occ.barrier_slots_per_cu, occ.local_mem_alloc_min_bytes, occ.local_mem_alloc_step_bytes) == \
        (16, 4096, 1024)
    # the Gen9 whitepaper's FPUs run 32-bit integers at the float rate (SIMD16: 2 cycles); the guide's
    # preference for float is about multiplies and fused multiply-adds, which integers lack
    assert t.alu_cycles["int_add"] == t.alu_cycles["fp32_add"] == 2
    assert t.alu_cycles["int_mul"] > t.alu_cycles["fp32_mul"]


@pytest.mark.parametrize("name", ["adreno-640", "adreno-740"])
def test_adreno_guide_numbers(name):
    t = load_target(name)
    assert t.alu_cycles["fp16_fma"] * 2 == t.alu_cycles["fp32_fma"]
    assert t.cache("L2").line_bytes == 64
    # the guide's coalescing example: 8 consecutive 4-byte work-items need 2 transactions
    assert 8 * 4 // t.transaction_bytes == 2
    classes = t.math_classes
    assert classes["A"].cycles < classes["B"].cycles < classes["C"].cycles < classes["D"].cycles
    assert t.alu_cycles["math_ceil"] == classes["A"].cycles
    # fabs, fmin and fmax are one ALU instruction each (ir3's absneg.f, min.f, max.f): below class A
    assert t.alu_cycles["math_fabs"] == t.alu_cycles["math_fmax"] == t.alu_cycles["fp32_add"]
    assert t.alu_cycles["math_tan"] == classes["D"].cycles
    assert t.alu_cycles["math_native_sin"] < t.alu_cycles["math_sin"]


def test_gx6650_uses_the_rogue_lane_rates_at_its_own_size():
    small, big = load_target("powervr-g6400"), load_target("powervr-gx6650")
    scale = (big.clock_mhz * big.compute_units) / (small.clock_mhz * small.compute_units)
    for a, b in zip(peak_throughput(small), peak_throughput(big), strict=True):
        if a.data_type == "half":   # Series6XT: FP16 twice FP32 (Series6: 1.5 times, the guide's 6 against 4)
            assert (a.ops_per_instruction, b.ops_per_instruction) == (6, 8)
            assert b.value == pytest.approx(a.value * scale * 8 / 6)
        else:
            assert b.value == pytest.approx(a.value * scale)
    implied = implied_alu_cycles(big)
    assert implied["fp16_fma"] == big.alu_cycles["fp16_fma"] == 0.5
    for op, cycles in implied.items():
        assert big.alu_cycles[op] == pytest.approx(cycles), op


def test_h200_numbers():
    t = load_target("nvidia-h200")
    assert (t.compute_units, t.simd.width) == (132, 32)
    assert (t.local_memory.banks, t.local_memory.bank_width_bytes) == (32, 4)
    l1 = t.cache("L1")
    assert (l1.line_bytes, l1.sector_bytes) == (128, 32)
    assert t.dram.bandwidth_gb_per_s == 4800


# -- bad input ------------------------------------------------------------------

def _write(tmp_path: Path, old: str, new: str) -> Path:
    """The G6400 file with the first occurrence of ``old`` (nearest cache first) replaced."""
    assert old in G6400, old
    p = tmp_path / "bad.toml"
    p.write_text(G6400.replace(old, new, 1))
    return p


PVR = "powervr-rogue-compute-recommendations.txt §"
BAD = [
    # (old text, new text, key named, rule words); the first occurrence is replaced
    ('ways = { value = 4, assumed', 'ways = { value = 3, assumed', "caches.L1.ways", "divide"),
    ('line_bytes = { value = 128', 'line_bytes = { value = 0', "caches.L1.line_bytes", "power of two"),
    (f'line_bytes = {{ value = 128, source = "{PVR}System Memory Access (SLC',
     f'line_bytes = {{ value = 96, source = "{PVR}System Memory Access (SLC',
     "caches.SLC.line_bytes", "power of two"),
    ('sector_bytes = { value = 0, assumed', 'sector_bytes = { value = 48, assumed',
     "caches.L1.sector_bytes", "dividing line_bytes"),
    ('banks = { value = 4,', 'banks = { value = 0,', "local_memory.banks", "> 0"),
    ('widths = { value = [32],', 'widths = { value = [16, 64],', "simd.widths", "contain simd.width"),
    ('scope = { value = "compute_unit"', 'scope = { value = "per_core"',
     "caches.L1.scope", "compute_unit, shared"),
    ('write_policy = { value = "write_back"', 'write_policy = { value = "write_around"',
     "caches.SLC.write_policy", "write_back, write_through"),
    ('compute_units = {', 'compute_unitz = {', "compute_unitz", "unknown key"),
    ('[local_memory]\n', '[local_memory]\nbank_count = { value = 4, source = "x" }\n',
     "local_memory.bank_count", "unknown key"),
    (f'clock_mhz = {{ value = 500, source = "{PVR}Example Device: 500MHz G6400 (0.5 GHz)" }}',
     'clock_mhz = 500', "clock_mhz", "citation"),
    ('ways = { value = 4, assumed = "associativity not published; 4-way assumed" }', 'ways = { value = 4 }',
     "caches.L1.ways", "source"),
    ('ways = { value = 4, assumed = "associativity not published; 4-way assumed" }',
     'ways = { value = 4, cite = "x" }', "caches.L1.ways.cite", "unknown key"),
    ('max_work_group_size = { value = 512,', 'max_work_group_sizes = { value = 512,',
     "occupancy.max_work_group_sizes", "unknown key"),
    ('int_div = { value = 60,', 'int_divide = { value = 60,', "alu_cycles.int_divide", "opclass"),
    ('bitwise = { value = 2, source', 'bitwize = { value = 2, source', "alu_cycles.bitwize", "opclass"),
    ('local_mem_alloc_step_bytes = { value = 4,', 'local_mem_alloc_step_bytes = { value = 3,',
     "occupancy.local_mem_alloc_step_bytes", "divide local_mem_alloc_min_bytes"),
    ('width = { value = 32,', 'width = { value = 32.5,', "simd.width", "type int"),
    (f'ops_per_instruction = {{ value = 6, source = "{PVR}Example Device: 500MHz G6400" }}',
     'ops_per_instruction = 6', "peak_throughput[0].ops_per_instruction", "citation"),
    ('[alu_cycles_fast_math]\n', '[extra.alu_cycles_fast_math]\n', "extra", "typed sections"),
    ('[alu_cycles_fast_math]\n', '[alu_cycles_fast_math]\nfp32_divide = { value = 1, source = "x" }\n',
     "alu_cycles_fast_math.fp32_divide", "opclass"),
    ('ways = { value = 4, assumed', 'assoc = { value = 4, assumed', "caches.L1.assoc", "unknown key"),
    ('[dram]\n', '[dram]\nlatency_cycles = { value = 1, source = "x" }\n',
     "dram.latency_cycles", "unknown key"),
    ('tile_bytes = { value = 128,', 'tile_bytes = { value = 96,', "texture.tile_bytes", "power of two"),
    ('tile_rows = { value = 0,', 'tile_rows = { value = -1,', "texture.tile_rows", ">= 0"),
    ('[texture]\n', '[texture]\nshared_with = { value = "L3", assumed = "x" }\n', "texture.shared_with",
     "must name a level of [[caches]]"),
    ('[texture]\n', '[texture]\nshared_with = { value = "L1", assumed = "x" }\n', "texture_caches",
     "give no [[texture_caches]]"),
    ('size_bytes = { value = 8192,', 'size_bytes = { value = 8000,', "texture_caches.TPU.ways", "divide"),
    ('scope = { value = "compute_unit", source = "powervr-rogue-compute-recommendations.txt §Texture',
     'scope = { value = "shared", source = "powervr-rogue-compute-recommendations.txt §Texture',
     "texture_caches.TPU.scope", "must be compute_unit"),
    ('compute_units_per_instance = { value = 2,', 'compute_units_per_instance = { value = 0,',
     "texture_caches.TPU.compute_units_per_instance", "> 0"),
]


@pytest.mark.parametrize("old,new,key,rule", BAD, ids=[b[2] + ":" + b[3] for b in BAD])
def test_impossible_or_unknown_field_names_file_key_and_rule(tmp_path, old, new, key, rule):
    path = _write(tmp_path, old, new)
    with pytest.raises(TargetError) as err:
        load_target(path)
    msg = str(err.value)
    assert str(path.resolve()) in msg
    assert f"key '{key}'" in msg
    assert rule in msg


def test_missing_field_is_named(tmp_path):
    line = next(ln for ln in G6400.splitlines() if ln.startswith("max_work_group_size = "))
    path = _write(tmp_path, line + "\n", "")
    with pytest.raises(TargetError, match=r"occupancy\.max_work_group_size': required field is missing"):
        load_target(path)


def test_missing_alu_opclass_is_named(tmp_path):
    path = _write(tmp_path, 'barrier = { value = 2, source', '# barrier removed = { value = 2, source')
    with pytest.raises(TargetError, match=r"alu_cycles\.barrier.*required"):
        load_target(path)


def test_missing_section_and_bad_toml(tmp_path):
    path = _write(tmp_path, "[dram]\n", "[dram_]\n")
    with pytest.raises(TargetError, match="unknown key"):
        load_target(path)
    broken = tmp_path / "broken.toml"
    broken.write_text("name = \n")
    with pytest.raises(TargetError, match="not valid TOML") as err:
        load_target(broken)
    assert "broken.toml" in str(err.value)


def test_unknown_target_name_lists_the_known_ones():
    with pytest.raises(TargetError) as err:
        load_target("powervr-g9999")
    msg = str(err.value)
    assert "powervr-g9999" in msg
    for name in SHIPPED:
        assert name in msg


def test_missing_path_is_an_error(tmp_path):
    with pytest.raises(TargetError, match="not found"):
        load_target(tmp_path / "nope.toml")


def test_user_target_file_by_path(tmp_path):
    p = tmp_path / "my-gpu.toml"
    p.write_text(G6400.replace('name = "powervr-g6400"', 'name = "my-gpu"')
                 .replace("value = 500, source", "value = 250, source"))
    t = load_target(str(p))
    assert t.name == "my-gpu"
    assert format_value(peak_throughput(t)[1].value) == "64"   # half the clock, half the MAD rate


# -- CLI --------------------------------------------------------------------------

runner = CliRunner()


def test_cli_targets_list():
    res = runner.invoke(app, ["targets", "list"])
    assert res.exit_code == 0, res.output
    for name in SHIPPED:
        assert name in res.output
    row = next(line for line in res.output.splitlines() if "powervr-g6400" in line)
    assert "│ 4 " in row and "32" in row and "500" in row
    assert "16 (8/16/32)" in res.output


def test_cli_targets_show_g6400_prints_the_guide_table_and_sources():
    res = runner.invoke(app, ["targets", "show", "powervr-g6400"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    expected = [("sum-of-products", "192", "GFLOPS"), ("multiply-and-add", "128", "GFLOPS"),
                ("divide (default)", "8", "GFLOPS"), ("divide (fast-relaxed math)", "16", "GFLOPS"),
                ("divide ", "1.07", "GILOPS")]
    for op, value, unit in expected:
        assert any(op in ln and f"│ {value} " in ln and unit in ln for ln in lines), (op, value)
    assert "local_memory.banks" in res.output
    assert "§Common Store" in res.output


def test_cli_targets_show_unknown_exits_2():
    from tracekit.cli import main
    with pytest.raises(SystemExit) as exc:
        main(["targets", "show", "no-such-gpu"])
    assert exc.value.code == 2


def test_docs_describe_every_schema_key():
    from tracekit.targets import schema as S
    doc = (Path(__file__).resolve().parents[1] / "docs" / "targets.md").read_text()
    for prefix, table in (("", S.TOP), ("simd.", S.SIMD), ("caches[].", S.CACHE),
                          ("local_memory.", S.LOCAL_MEMORY), ("dram.", S.DRAM), ("occupancy.", S.OCCUPANCY),
                          ("texture.", S.TEXTURE), ("texture_caches[].", S.TEXTURE_CACHE),
                          ("constant_cache.", S.CONSTANT_CACHE)):
        for key, spec in table.items():
            assert f"`{prefix}{key}`" in doc, key
            if spec.rule:
                assert spec.rule in doc, key


def test_loaded_targets_do_not_share_mutable_state():
    a = load_target("powervr-g6400")
    a.alu_cycles["fp32_fma"] = 999.0
    a.alu_cycles_fast_math.clear()
    b = load_target("powervr-g6400")
    assert b.alu_cycles["fp32_fma"] == 1.0 and b.alu_cycles_fast_math and len(b.peak_throughput) == 10


# -- classes a target cannot run --------------------------------------------------

FP64 = f'fp64_add = {{ value = 30, source = "{PVR}Measuring Peak Performance'


def test_unsupported_class_loads_with_its_citation(tmp_path):
    line = next(ln for ln in G6400.splitlines() if ln.startswith(FP64))
    path = _write(tmp_path, line, 'fp64_add = { unsupported = true, source = "no 64-bit float unit" }')
    t = load_target(path)
    assert t.unsupported == {"fp64_add": "no 64-bit float unit"}
    assert "fp64_add" not in t.alu_cycles and t.sources["alu_cycles.fp64_add"] == "no 64-bit float unit"
    assert load_target("powervr-g6400").unsupported == {}


@pytest.mark.parametrize("entry,key,rule", [
    ('{ unsupported = false, source = "x" }', "alu_cycles.fp64_add.unsupported", "must be true"),
    ('{ unsupported = true }', "alu_cycles.fp64_add", "needs a 'source'"),
    ('{ unsupported = true, value = 3, source = "x" }', "alu_cycles.fp64_add.value", "unknown key"),
])
def test_bad_unsupported_entry_is_named(tmp_path, entry, key, rule):
    line = next(ln for ln in G6400.splitlines() if ln.startswith(FP64))
    path = _write(tmp_path, line, f"fp64_add = {entry}")
    with pytest.raises(TargetError) as err:
        load_target(path)
    assert f"key '{key}'" in str(err.value) and rule in str(err.value)


def test_math_default_cannot_be_unsupported(tmp_path):
    line = next(ln for ln in G6400.splitlines() if ln.startswith("math_default = "))
    path = _write(tmp_path, line, 'math_default = { unsupported = true, source = "x" }')
    with pytest.raises(TargetError, match="math_default.*cannot be unsupported"):
        load_target(path)


def test_cache_lookup_choices(tmp_path):
    path = _write(tmp_path, 'cache_lookup = { value = "lane"', 'cache_lookup = { value = "thread"')
    with pytest.raises(TargetError, match=r"cache_lookup': must be one of request, lane"):
        load_target(path)


def test_cli_targets_show_marks_assumed_numbers():
    res = runner.invoke(app, ["targets", "show", "adreno-640"])
    assert res.exit_code == 0, res.output
    row = {ln.split("│")[1].strip(): [c.strip() for c in ln.split("│")[1:-1]]
           for ln in res.output.splitlines() if ln.startswith("│") and ln.count("│") >= 5}
    assert row["caches.L2.ways"][2] == "ASSUMED"                       # no source at all
    assert row["simd.issuers_per_cu"][2] == "sourced"
    assert row["caches.SLC.bandwidth_bytes_per_cycle"][2] == "source+assumed"
    assert row["alu_cycles.fp64_add"][1:3] == ["unsupported", "unsupported"]
    t = load_target("adreno-640")
    assumed = sum(1 for v in t.sources.values() if v.startswith("assumed:"))
    assert f"{assumed} of " in res.output and "numbers are ASSUMED" in res.output



def test_texture_tile_shapes():
    """A tile holds tile_bytes of texels in tile_rows rows, or as square as it can (tile_rows = 0)."""
    adreno, pvr, h200 = (load_target(n).texture for n in ("adreno-640", "powervr-g6400", "nvidia-h200"))
    assert [adreno.tile_shape(b) for b in (1, 4, 16)] == [(16, 4), (4, 4), (1, 4)]
    assert [pvr.tile_shape(b) for b in (1, 4, 8, 16)] == [(16, 8), (8, 4), (4, 4), (4, 2)]
    assert h200.tile_shape(4) == (16, 2) and h200.shared_with == "L1" and h200.caches == ()
    assert load_target("powervr-g6400").texture.caches[0].compute_units_per_instance == 2


def test_a_target_without_texture_section_still_loads(tmp_path):
    text = target_path("adreno-640").read_text()
    start, end = text.index("[texture]"), text.index("[local_memory]")
    p = tmp_path / "old.toml"
    p.write_text(text[:start] + text[end:])
    assert load_target(p).texture is None
    p.write_text(text[:start] + text[text.index("[[texture_caches]]"):])
    with pytest.raises(TargetError, match="texture_caches.*needs a \\[texture\\] section"):
        load_target(p)
