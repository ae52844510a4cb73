"""A what-if naming a buffer or site the trace does not have is refused, not reported as +0.0 %."""

from __future__ import annotations

import pytest

from tracekit.errors import TracekitError


@pytest.mark.parametrize("change, named, listed", [
    ("coalesce=7", "no buffer argument 7", "buffer arguments in the trace: 0, 1, 2"),
    ("pad-local=64:4:5", "no buffer argument 5", "0, 1, 2"),
    ("align=9", "no access site 9", "access sites in the trace: 0, 1, 2"),
    ("keep-in-register=3", "no access site 3", "0, 1, 2"),
    ("sampler-borders=4,5", "no instruction site 4, 5", "instruction sites in the trace: none"),
    ("as-image=7", "no buffer argument 7", "0, 1, 2"),
    ("vector-loop-loads=8", "no access site 8", "0, 1, 2"),
    ("fp32=6", "no instruction site 6", "instruction sites in the trace: none"),
    ("coalesce=1+align=12", "no access site 12", "0, 1, 2"),   # one bad part refuses the whole
])
def test_unknown_buffer_or_site_is_refused(make_trace, run_cli, tmp_path, change, named, listed):
    trace = make_trace("vector_add")
    r = run_cli("analyze", trace, "-t", "adreno-640", "--what-if", change, "-f", "json",
                "-o", tmp_path / "w.json")
    assert r.code == 2, r.text
    assert named in r.text and listed in r.text and change in r.text
    assert not (tmp_path / "w.json").exists()


def test_existing_buffer_and_site_still_replay(make_trace, run_cli, tmp_path):
    trace = make_trace("vector_add")
    r = run_cli("analyze", trace, "-t", "adreno-640", "--what-if", "coalesce=1+align=2", "-f", "json")
    assert r.code == 0, r.text


def test_notebook_what_if_refuses_too(make_trace):
    from analyzers import what_if

    with pytest.raises(TracekitError, match="no buffer argument 9"):
        what_if(str(make_trace("vector_add")), "adreno-640", "coalesce=9")
