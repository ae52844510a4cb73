"""ADR-READ-IMAGEH: an 8-bit or half-float image read as 32-bit floats, where read_imageh would do."""

from analyzers.rules.image_facts import HALF_EXACT_TYPES, channel_type, image_reads
from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule
from analyzers.whatif.images import HalfTexels

_FP32 = ("fp32_add", "fp32_mul", "fp32_fma")


@rule(id="ADR-READ-IMAGEH", what_if="read-imageh",
      title="8-bit or half-float image read with read_imagef where read_imageh fits",
      vendors=("adreno",),
      inputs=("sites.image_format", "sites.opcode", "ops.issues"),
      citation=C("adreno", "10.3.2 Data pack optimization"),
      thresholds={"fp32_share": Threshold(0.05, "team choice: the fix pays through 32-bit float arithmetic "
                                                "becoming 16-bit (adreno §7.2.4); below a twentieth of the "
                                                "issues there is little to gain")},
      fix="""Read the image with read_imageh and keep the filter's arithmetic in half: the texture unit
      converts 8-bit normalised and half-float texels to 16-bit floats for free, and half arithmetic runs
      at twice the 32-bit rate.  Keep read_imagef where the format holds more precision than a half.""")
def check(f, t):
    reads = image_reads(f)
    if not len(reads):
        return None
    code = f.result.per_site
    opcode = dict(zip(code["site"], code["opcode"], strict=False)) if "opcode" in code else {}
    reads = reads[[str(opcode.get(s, "")).endswith("read_imagef") for s in reads["site"]]]
    fits = reads[[channel_type(x) in HALF_EXACT_TYPES for x in reads["image_format"]]]
    if not len(fits) or len(fits) < len(reads):
        return None        # a format with more precision than a half: read_imagef is right there
    o = f.ops
    total = float(o["issues"].sum()) if len(o) else 0.0
    fp32 = float(o.loc[o["opclass"].isin(_FP32), "issues"].sum()) if len(o) else 0.0
    if not total or fp32 / total < t.fp32_share:
        return None
    ev = {"image_formats": sorted({str(x) for x in fits["image_format"]}),
          "fp32_share_of_issues": round(fp32 / total, 4)}
    return Hit(ev, sites=list(fits["site"]), change=HalfTexels())
