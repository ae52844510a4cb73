"""The resolved kernel argument shared by the buffer and image argument parsers."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class ArgValue:
    """One resolved kernel argument: what the launch host needs to set it."""

    kind: str                 # "buffer" | "scalar" | "local" | "image" | "sampler"
    #: OpenCL type name ("float", "uint4"); "" for local; ``ORDER:TYPE`` of an image
    #: ("rgba:float"); ``ADDRESSING,FILTER,COORDS`` of a sampler
    type: str
    nbytes: int
    data: np.ndarray | None = None  # buffer or image contents, scalar bytes (None: zeros)
    text: str = ""
    image_dims: tuple[int, int, int] = field(default=(1, 1, 1))  # width, height, depth of an image
    image_type: str = ""      # image1d | image2d | image3d

    def describe(self) -> str:
        if self.kind == "image":
            return f"{self.image_type} {'x'.join(map(str, self.image_dims))} of {self.type}"
        if self.kind == "sampler":
            return f"sampler {self.type}"
        if self.kind == "local":
            return f"local memory, {self.nbytes} bytes"
        if self.kind == "scalar":
            return f"{self.type} scalar"
        return f"{self.type} buffer, {self.nbytes} bytes"
