"""Performance models that replay a trace on a target GPU.

Each module is one model and a set of pure functions over Arrow/NumPy/pandas
data, importable from a notebook without the CLI.
"""
