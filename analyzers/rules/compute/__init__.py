"""Instructions: divergence, integer division, math precision, 64-bit integers, int vs float, fusion."""
