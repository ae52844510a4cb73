"""GEN-GATHER-IMAGE: a data-dependent gather through the buffer path, where texture caches would serve."""

from analyzers.rules.gather_facts import hottest_read_only_gather
from analyzers.rules.image_facts import has_texture_path
from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, rule
from analyzers.whatif.images import GatherImage


@rule(id="GEN-GATHER-IMAGE", what_if="gather-image",
      title="Gather through the buffer path: read the gathered data through the texture caches",
      vendors=("adreno", "powervr"), covered_by=("GEN-BUFFER-AS-IMAGE", "GEN-IMAGE-FILTER"),
      inputs=("sites.accesses", "sites.bytes_moved", "dataflow", "ops.role"),
      citation={"adreno": C("adreno", "7.1.5.3 Image object vs. buffer object"),
                "powervr": C("pvr", "Texture Processing Unit")},
      fix="""Read the gathered array through an image view of the same memory (image1d_buffer_t, or
      clCreateImage from the buffer) with read_imagef and the index as the coordinate: the texture
      caches keep the elements that neighbouring items gather again, which the buffer path (on Adreno
      it bypasses the L1) fetches from the L2 each time.""")
def check(f, t):
    if not has_texture_path(f):
        return None
    ev = hottest_read_only_gather(f, named_buffer=True)
    if ev is None:
        return None
    # a candidate: only a replay that finds the texture caches catching shared elements keeps it
    return Hit(ev, sites=[ev["site"]], change=GatherImage(ev["buffer"]))
