"""ADR-FEW-WAVES: the register footprint leaves room for fewer than four waves."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule


@rule(id="ADR-FEW-WAVES", title="Register footprint allows fewer than 4 waves",
      vendors=("adreno",), inputs=("launch.registers_per_item", "target.occupancy.registers_per_cu"),
      citation=C("adreno", "4.4.4 SDP: static code analysis"),
      thresholds={"waves": Threshold(4, "adreno §4.4.4 SDP: static code analysis: fewer than 4 waves is "
                                        "flagged")},
      fix="""Shrink the per-item register footprint: fewer live values, less work per item, 16-bit
      types where precision allows, and 32-bit instead of size_t indices.""")
def check(f, t):
    regs = f.launch.registers_per_item
    per_cu = f.target.occupancy.registers_per_cu
    if not regs or not per_cu:
        return None
    waves = per_cu // (regs * f.width)
    if waves >= t.waves:
        return None
    return Hit({"registers_per_item": int(regs), "waves_by_registers": int(waves), "minimum": int(t.waves)})
