"""Remediation rules: the checklist drawn from the vendor guides, one rule per file.

Usage from a notebook::

    from analyzers import analyze
    from analyzers.rules import run_rules, findings_frame
    findings = run_rules(analyze(trace, "adreno-640"))
    findings_frame(findings)

Rules read only the analysis result (:mod:`analyzers.rules.facts`); each lives in
one file under ``memory/``, ``local/``, ``compute/`` or ``launch/`` with its
thresholds, inputs, gain estimate, fix and citation, and registers itself when
imported.  docs/rules.md explains how to write one and lists them all (generated
by :func:`analyzers.rules.doc.rules_table`).
"""

import importlib
import pkgutil

from analyzers.rules.facts import Facts, facts_for
from analyzers.rules.rule import GUIDES, Citation, Finding, Hit, Rule, Threshold, registry, vendor_key
from analyzers.rules.runner import FINDING_COLUMNS, findings_frame, launch_facts, run_rules

#: The folders rules live in; every module in them is imported (and so registered) here.
AREAS = ("memory", "local", "compute", "launch")


def _load_rules() -> None:
    for area in AREAS:
        package = importlib.import_module(f"analyzers.rules.{area}")
        for info in pkgutil.iter_modules(package.__path__):
            importlib.import_module(f"analyzers.rules.{area}.{info.name}")


_load_rules()

__all__ = ["AREAS", "GUIDES", "Citation", "FINDING_COLUMNS", "Facts", "Finding", "Hit", "Rule", "Threshold",
           "facts_for", "findings_frame", "launch_facts", "registry", "run_rules", "vendor_key"]
