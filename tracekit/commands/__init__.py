"""CLI command groups, one module per area; each exposes ``register(app)``."""

from __future__ import annotations

import typer


def register_all(app: typer.Typer) -> None:
    from . import analyze as analyze_cmds
    from . import calibrate as calibrate_cmds
    from . import compare as compare_cmds
    from . import isa as isa_cmds
    from . import jobs as jobs_cmds
    from . import record as record_cmds
    from . import scale as scale_cmds
    from . import targets as targets_cmds
    from . import trace as trace_cmds

    trace_cmds.register(app)
    jobs_cmds.register(app)
    targets_cmds.register(app)
    compare_cmds.register(app)
    record_cmds.register(app)
    analyze_cmds.register(app)
    calibrate_cmds.register(app)
    scale_cmds.register(app)
    isa_cmds.register(app)
