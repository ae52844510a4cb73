"""Pricing findings by replay: a fix the model can apply is tried, and its gain is what it saves.

A rule whose fix changes where data lives or who reads it hands the runner the
change (:mod:`analyzers.whatif.changes`); this step replays each launch with the
change applied (:func:`analyzers.whatif.what_if`, on the same head of work-groups
as the unchanged replay) and takes the difference of the two model times as the
finding's gain.  A change that saves nothing turns the finding into a note, and one
that makes the launch slower removes it: advice the model says would hurt is not
given.  A change marked ``speculative`` (a padded row pitch, whose effect depends on
each cache's set mapping) is only a candidate: without a measured gain it is dropped.
A change that does not apply to a launch (no row pitch to read a buffer as an image, a
1-D grid to walk in tiles) leaves the finding a note without a gain: the rule's own
estimate is not shown in place of a replay.  Replays are shared between findings that
propose the same change.

Fixes of one launch are also tried together.  Two bottlenecks can tie (a local-memory
term and a cache term of the same size): removing either alone changes nothing, both
together shorten the launch.  Each fix is then credited with what it adds to the
others (the joint replay against the replay without it) when that is more than its
gain alone, and the finding says so.
"""

from __future__ import annotations

from dataclasses import replace

from analyzers.parallel import map_cores
from analyzers.rules.rule import GAIN_LOW, Finding, registry, severity_of
from analyzers.rules.runner import checklist_order
from tracekit.errors import TracekitError

#: Accesses a finding's replay reads per launch at most (a head of whole work-groups, both sides
#: of the comparison): the relative gain measured there scales the whole launch, and the cost of
#: pricing a checklist stays bounded however long the trace is (640 Ki: every bundled sample's
#: launches are priced whole, and pricing a long trace stays well inside the analysis' memory).
PRICING_ACCESSES = 640 << 10
#: The most memory one replay of such a head takes (both sides, the change's copies of the frames):
#: fewer replays run at once where the free memory does not hold this many.
REPLAY_PEAK_BYTES = 1 << 30


def price_by_replay(findings: list[Finding], results, trace, *,
                    max_accesses: int | None = None) -> list[Finding]:
    """``findings`` with every proposed change priced by a what-if replay of ``trace``.

    ``results``: the :class:`~analyzers.analyze.AnalysisResult` of each target the
    findings are for (their launch times turn the replay's relative gain into seconds).
    """
    from analyzers.whatif.changes import Combined
    from analyzers.whatif.replay import Replays

    targets = {r.target.name: r.target for r in results}
    totals = {(r.target.name, lr.launch): float(lr.time_estimates.get("total_s", 0.0) or 0.0)
              for r in results for lr in r.launches}
    verdicts = {(r.target.name, lr.launch): lr.verdict for r in results for lr in r.launches}
    priced = [f for f in findings if f.change is not None and f.target in targets]
    replayable = {r.id for r in registry().values() if r.what_if}
    if not priced:       # nothing to replay: the trace is not read again
        return checklist_order([unpriced(f) if f.rule_id in replayable else f for f in findings])
    replays = Replays(trace, PRICING_ACCESSES if max_accesses is None else max_accesses)
    done: dict[tuple, object] = {}

    def on_cores(fn, tasks):
        return map_cores(fn, tasks, memory_each=REPLAY_PEAK_BYTES)

    def attempt(task):
        target, launch, change = task
        try:
            return replays.run(targets[target], change, launch)
        except TracekitError:  # the change does not apply to this launch
            return None

    def prefetch(tasks) -> None:
        """The replays of ``tasks`` not yet made, on every core (each is independent of the others)."""
        todo = list({(t, n, c.spec): (t, n, c) for t, n, c in tasks if (t, n, c.spec) not in done}.items())
        made = on_cores(attempt, [task for _, task in todo])
        for (key, _), w in zip(todo, made, strict=True):
            done[key] = w

    def replay(target: str, launch: int, change):
        prefetch([(target, launch, change)])
        return done[(target, launch, change.spec)]

    def usable(f) -> bool:
        """The finding's fix replays and neither slows the launch nor defeats its own purpose."""
        if f.change is None or f.target not in targets:
            return False
        w = replay(f.target, f.launch, f.change)
        return w is not None and not w.after.error and w.gain_fraction >= 0 and not f.change.side_effect(
            w.before, w.after)

    # launch by launch (each launch's head of work-groups is read once, before the workers fork): the
    # unchanged replay on each target, every fix alone, then the fixes of each target together
    together: dict[tuple, tuple] = {}
    for launch in sorted({f.launch for f in priced}):
        mine = [f for f in priced if f.launch == launch]
        replays.prefetch_before(launch, sorted({(f.target, f.change.machine) for f in mine}),
                                lambda t: targets[t], on_cores)
        prefetch([(f.target, launch, f.change) for f in mine])
        # speculative candidates (more work per item, a padded pitch) are priced alone: they reshape the
        # kernel rather than remove one of two tied bottlenecks
        fixes = {t: [f for f in mine if f.target == t and usable(f) and not f.change.speculative]
                 for t in sorted({f.target for f in mine})}
        prefetch([task for group in fixes.values() for task in _joint_tasks(group, targets, Combined)])
        for group in fixes.values():
            together.update(_joint_credit(group, targets, replay, Combined))
    out = []
    for f in findings:
        if f.change is None or f.target not in targets:
            # a rule priced by replay that found no change to propose on this launch has no gain
            out.append(unpriced(f) if f.rule_id in replayable else f)
            continue
        w = replay(f.target, f.launch, f.change)
        joint = together.get((f.target, f.launch, f.change.spec))
        if w is None:
            if not f.change.speculative:   # the change does not apply here: a note, without the
                out.append(unpriced(f))    # rule's own estimate beside the model
            continue
        if w.after.error:          # the fixed kernel would not run on this target
            continue
        frac = w.gain_fraction
        if frac < 0 or f.change.side_effect(w.before, w.after):   # the fix would hurt
            continue
        detail = {}
        if joint is not None and joint[0] > frac:
            frac = joint[0]
            detail = {"with_the_other_fixes": joint[1], "time_without_this_fix_s": float(f"{joint[2]:.6g}"),
                      "time_with_all_fixes_s": float(f"{joint[3]:.6g}")}
        if f.change.speculative and frac < GAIN_LOW:
            continue               # a candidate the replay does not confirm
        total = totals.get((f.target, f.launch), 0.0)
        gain = float(f"{frac * total:.6g}")
        out.append(replace(f, estimated_gain_s=gain, estimated_gain_fraction=float(f"{min(frac, 1.0):.6g}"),
                           severity=severity_of(frac), gain_method="replay",
                           what_if={"change": f.change.spec, "description": f.change.describe(),
                                    **whole_launch(w, total, verdicts.get((f.target, f.launch))),
                                    "groups_replayed": w.groups_replayed, "groups_total": w.groups_total,
                                    **detail}))
    return checklist_order(out)


def unpriced(f: Finding) -> Finding:
    """``f`` as a note without a gain: its fix could not be replayed on this launch, and a gain the
    rule estimated by itself would be a number the model never produced."""
    if f.estimated_gain_s is None:
        return f
    return replace(f, estimated_gain_s=None, estimated_gain_fraction=None, severity=severity_of(None),
                   gain_method=None)


def whole_launch(w, total_s: float, verdict: str | None) -> dict:
    """A replay's before and after as the launch's analysis sees it: the time ``tracekit analyze``
    gives the launch, and that time less the share the replay saves.  The replay runs on a head
    of work-groups (without the warm-up of a sampled launch), so its own times can differ from
    the analysis; they are kept as ``replayed_before_s``/``replayed_after_s``."""
    before = total_s if total_s > 0 else w.time_before_s
    return {"verdict_before": verdict or w.verdict_before, "verdict_after": w.verdict_after,
            "time_before_s": float(f"{before:.6g}"),
            "time_after_s": float(f"{before * (1.0 - w.gain_fraction):.6g}"),
            "replayed_before_s": float(f"{w.time_before_s:.6g}"),
            "replayed_after_s": float(f"{w.time_after_s:.6g}")}


def _joint_plan(findings, targets, combined) -> list[tuple]:
    """Per launch with two or more distinct fixes: (target, launch, all the fixes together, and per
    fix (its spec, the other fixes' specs, the change that applies only those))."""
    by_launch: dict[tuple, dict[str, object]] = {}
    for f in findings:
        if f.change is not None and f.target in targets:
            by_launch.setdefault((f.target, f.launch), {})[f.change.spec] = f.change
    plan = []
    for (target, launch), changes in by_launch.items():
        if len(changes) < 2:
            continue
        specs = sorted(changes)
        left_out = []
        for spec in specs:
            rest = [s for s in specs if s != spec]
            left_out.append((spec, rest, changes[rest[0]] if len(rest) == 1
                             else combined(tuple(changes[s] for s in rest))))
        plan.append((target, launch, combined(tuple(changes[s] for s in specs)), left_out))
    return plan


def _joint_tasks(findings, targets, combined) -> list[tuple]:
    """The (target, launch, change) replays :func:`_joint_credit` reads."""
    return [(target, launch, change)
            for target, launch, joint, left_out in _joint_plan(findings, targets, combined)
            for change in (joint, *(without for _, _, without in left_out))]


def _joint_credit(findings, targets, replay, combined) -> dict[tuple, tuple]:
    """Per (target, launch, change): the share of the launch's time the change adds to the other
    fixes of the launch (joint replay against the joint replay without it), the other fixes, and
    the two replayed times.

    Only launches with two or more distinct changes are tried, each fix left out once.
    """
    out = {}
    for target, launch, together, left_out in _joint_plan(findings, targets, combined):
        joint = replay(target, launch, together)
        if joint is None or joint.after.error:
            continue
        base = joint.time_before_s
        for spec, rest, change in left_out:
            without = replay(target, launch, change)
            if without is None or without.after.error or not base:
                continue
            share = (without.time_after_s - joint.time_after_s) / base
            out[(target, launch, spec)] = (share, " + ".join(rest), without.time_after_s, joint.time_after_s)
    return out
