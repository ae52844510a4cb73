"""Image rules: buffers read in 2-D made images, tile-defeating reads, sampler borders, read_imageh.

Real traces only: the sample convolution through a buffer and through an image, and
kernels of tests/data/images recorded on Oclgrind (recorded_kernels).  Gains come from
the what-if replays of analyzers.whatif.images, priced as the pipeline prices them.
"""

from __future__ import annotations

import pytest
import recorded_kernels as rk
from rules_helpers import fired
from test_rules_workgroup import check_case, params

import analyzers
from analyzers.rules import run_rules
from analyzers.rules.gains import price_by_replay
from analyzers.whatif import parse_change
from analyzers.whatif.images import AsImage, SamplerBorders
from tracekit.errors import TracekitError

CASES = {
    "GEN-BUFFER-AS-IMAGE": (["adreno", "powervr"], lambda t: rk.sample("conv3x3_buffer"),
                            lambda t: rk.sample("conv3x3_image")),
    "GEN-TEXTURE-TILES": (["adreno", "powervr"], lambda t: rk.Recorded(rk.column_read),
                          lambda t: rk.sample("conv3x3_image")),
    "GEN-SAMPLER-BORDERS": (["adreno", "intel"], lambda t: rk.sample("conv3x3_buffer"),
                            lambda t: rk.sample("conv3x3_image")),
    "GEN-IMAGE-FILTER": (["adreno", "powervr", "intel"],
                         lambda t: rk.Recorded(lambda: rk.interpolation("bilinear")),
                         lambda t: rk.Recorded(lambda: rk.interpolation("box"))),
    "GEN-GATHER-IMAGE": (["adreno", "powervr"], lambda t: rk.Recorded(rk.gather_index),
                         lambda t: rk.sample("vector_add")),
    "GEN-GATHER-LOCAL": (["powervr", "adreno", "intel", "nvidia"], lambda t: rk.Recorded(rk.table_lookup),
                         lambda t: rk.sample("vector_add")),
    "ADR-READ-IMAGEH": (["adreno"], lambda t: rk.Recorded(lambda: rk.conv_image("unorm_int8")),
                        lambda t: rk.sample("conv3x3_image")),
}


@pytest.mark.parametrize("rule_id,vendor", params(CASES))
def test_rule_fires_and_stays_quiet(rule_id, vendor):
    check_case(CASES, rule_id, vendor)


def _priced(trace_path, target, rule_id):
    """The rule's finding on every launch, priced by replay as ``tracekit analyze`` prices it."""
    res = analyzers.analyze(trace_path, target)
    found = run_rules(res, only=[rule_id])
    priced = price_by_replay(found, [res], res_trace(trace_path))
    return [f for f in priced if f.rule_id == rule_id]


def res_trace(path):
    from tracekit.formats import open_trace
    return open_trace(path)


def test_buffer_as_image_is_priced_by_replay_on_the_buffer_convolution():
    """Adreno guide §6.2/§7.1.5.3: read the buffer convolution as an image.  The replay lands on the
    image sample's own memory numbers (TP L1 hit rate, L2 lines) and prices the change: a gain on the
    Adreno 740 and PowerVR, whose texture caches are assumed at 16 KiB and more, a loss on the Adreno
    640, whose texture L1 is the 1 KiB ArchProbe published (tests/data/mobile/archprobe): half the
    window's reads miss it and pay the texture path's latency on top of the L2's."""
    path = rk.SAMPLES / "conv3x3_buffer.tkt"
    (f,) = _priced(path, "adreno-740", "GEN-BUFFER-AS-IMAGE")
    assert f.gain_method == "replay" and f.severity in ("high", "medium", "low")
    assert f.estimated_gain_fraction > 0.01
    assert f.what_if["change"].startswith("as-image=0:")
    ev = f.evidence
    assert ev["neighbourhood_per_item"] == "3 rows x 3 columns" and ev["row_pitch_bytes"] == 256
    assert ev["address_instructions_dropped"] == ["conv2d.cl:17"]
    (p,) = _priced(path, "powervr-g6400", "GEN-BUFFER-AS-IMAGE")
    assert p.gain_method == "replay" and p.estimated_gain_fraction > 0
    # the Adreno 640: the rule still sees the neighbourhood, the replay says the change loses
    res = analyzers.analyze(path, "adreno-640")
    (raw,) = run_rules(res, only=["GEN-BUFFER-AS-IMAGE"])
    assert raw.evidence["data_cache_lines_as_buffer"] == 3420
    assert _priced(path, "adreno-640", "GEN-BUFFER-AS-IMAGE") == []
    (w,) = analyzers.what_if(path, "adreno-640", f.change)
    assert w.time_after_s > w.time_before_s
    img = analyzers.analyze(rk.SAMPLES / "conv3x3_image.tkt", "adreno-640").launches[0]
    after, real = w.after.memory.memory, img.memory.memory
    assert after.texture_caches[0].hit_rate == pytest.approx(real.texture_caches[0].hit_rate, abs=1e-9)
    assert after.caches[0].hits + after.caches[0].misses == real.caches[0].hits + real.caches[0].misses


def test_buffer_as_image_stays_quiet_on_images_and_column_walks():
    for target in ("adreno-640", "powervr-g6400"):
        assert fired(rk.sample("conv3x3_image"), target.split("-")[0], "GEN-BUFFER-AS-IMAGE") is None
    # one column per item (1-D locality along the slow dimension): a pitch, but no neighbourhood
    walk = analyzers.analyze(rk.vertical_sum(), "adreno-640").launches[0]
    reads = walk.per_site[(walk.per_site["op"] == "load") & walk.per_site["row_pitch_bytes"].notna()]
    assert len(reads) and (reads["item_columns"] == 1).all() and (reads["item_rows"] == 8).all()
    assert fired(rk.Recorded(rk.vertical_sum), "adreno", "GEN-BUFFER-AS-IMAGE") is None


def test_as_image_change_refuses_a_buffer_it_cannot_read_as_an_image():
    trace = res_trace(rk.SAMPLES / "conv3x3_buffer.tkt")
    with pytest.raises(TracekitError, match="does not load buffer argument 1"):   # the output
        analyzers.what_if(trace, "adreno-640", AsImage(1))
    with pytest.raises(TracekitError, match="no row pitch"):
        analyzers.what_if(res_trace(rk.SAMPLES / "vector_add.tkt"), "adreno-640", "as-image=0")
    assert parse_change("as-image=0:35,36").spec == "as-image=0:35,36"
    assert parse_change("sampler-borders=26,27") == SamplerBorders((26, 27))
    with pytest.raises(TracekitError):
        parse_change("sampler-borders")
    with pytest.raises(TracekitError):
        parse_change("read-imageh=3")


def test_texture_tiles_fires_on_a_column_walk_and_is_priced_by_its_bottleneck():
    res = analyzers.analyze(rk.column_read(), "adreno-640")
    (f,) = run_rules(res, only=["GEN-TEXTURE-TILES"])
    assert f.evidence["tiles_per_request"] == 16 and f.evidence["tiles_needed_per_request"] == 4
    assert f.evidence["texture_hit_rate"] < 0.5 and f.evidence["suggested_work_group"] == "8x8"
    # at the texture L1's measured 194.5 GB/s (ArchProbe, tests/data/mobile/archprobe) the walk waits
    # on DRAM, which square groups do not shorten: the replay gives the change no gain and the
    # checklist drops it
    bound = res.launches[0].bound
    assert bound.memory_bottleneck == "DRAM" and bound.memory_levels_s["TPL1"] < bound.memory_levels_s["DRAM"]
    assert _priced(rk.column_read(), "adreno-640", "GEN-TEXTURE-TILES") == []
    # the stencil over 16 x 16 work-groups crosses tiles at its edges but its reads hit: quiet
    for sample in ("conv3x3_image", "resize_bilinear_image"):
        for vendor in ("adreno", "powervr"):
            assert fired(rk.sample(sample), vendor, "GEN-TEXTURE-TILES") is None


def test_sampler_borders_names_the_clamps_and_gains_by_replay():
    (f,) = _priced(rk.SAMPLES / "conv3x3_buffer.tkt", "adreno-640", "GEN-SAMPLER-BORDERS")
    assert f.evidence["clamp_lines"] == ["conv2d.cl:14", "conv2d.cl:15"]
    assert f.evidence["clamp_instructions_per_read"] == 2
    # the ALU term leads on both (Adreno: 4.28 us of ALU against 3.14 of memory), so dropping two
    # ALU instructions per read saves time there, priced by the replay
    assert f.gain_method == "replay" and f.estimated_gain_fraction > 0.05 and f.severity != "note"
    (i,) = _priced(rk.SAMPLES / "conv3x3_buffer.tkt", "intel-hd530", "GEN-SAMPLER-BORDERS")
    assert i.gain_method == "replay" and i.estimated_gain_fraction > 0.05
    # the bilinear resize clamps with min and max: found too; the loop bounds' compares are not clamps
    (r,) = run_rules(analyzers.analyze(rk.SAMPLES / "resize_bilinear_buffer.tkt", "intel-hd530"),
                     only=["GEN-SAMPLER-BORDERS"])
    assert r.evidence["clamp_lines"] == ["resize.cl:15", "resize.cl:16", "resize.cl:17"]


def test_read_imageh_only_where_the_format_fits_a_half():
    (f,) = _priced(rk.conv_image("unorm_int8"), "adreno-640", "ADR-READ-IMAGEH")
    assert f.evidence["image_formats"] == ["r:unorm_int8"] and f.gain_method == "replay"
    # half-width texels halve the texture path's bytes, but the texture path does not bound the launch
    # before or after (the texture L1 at ArchProbe's measured rate): the replayed gain is nothing
    assert f.what_if["verdict_before"] == f.what_if["verdict_after"] != "memory"
    assert f.estimated_gain_fraction == 0
    # 16-bit normalised texels carry more precision than a half's significand: read_imagef stays
    assert fired(rk.Recorded(lambda: rk.conv_image("unorm_int16")), "adreno", "ADR-READ-IMAGEH") is None


def test_cli_what_if_takes_the_image_changes(tmp_path, run_cli):
    import json
    out = tmp_path / "w.json"
    r = run_cli("analyze", rk.SAMPLES / "conv3x3_buffer.tkt", "-t", "adreno-740", "--what-if",
                "as-image=0:35,36,37,38+sampler-borders=26,27", "-f", "json", "-o", out)
    assert r.code == 0, r.err
    (row,) = json.loads(out.read_text())["targets"]["adreno-740"]
    assert row["change"] == "as-image=0:35,36,37,38+sampler-borders=26,27"
    assert row["time_after_s"] < row["time_before_s"]
    r = run_cli("analyze", rk.SAMPLES / "conv3x3_buffer.tkt", "-t", "adreno-740", "--what-if", "as-image=x")
    assert r.code == 2 and "as-image" in r.err and "Traceback" not in r.err
