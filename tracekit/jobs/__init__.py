"""Scheduled report jobs: a jobs file, a SQLite ledger, regressions, one run at a time.

``tracekit jobs run JOBS.toml`` (see docs/jobs.md) is :func:`run_jobs` plus
printing; :func:`process_trace` is the single call into the analysis pipeline.
"""

from tracekit.jobs.config import Job, JobsFile, JobsFileError, load_jobs
from tracekit.jobs.ledger import SCHEMA_VERSION, Ledger, LedgerError
from tracekit.jobs.lock import LedgerBusyError, RunLock
from tracekit.jobs.paths import OutputClashError
from tracekit.jobs.process import ReportWriteError, TraceOutcome, process_trace
from tracekit.jobs.runner import RunSummary, run_jobs

__all__ = ["SCHEMA_VERSION", "Job", "JobsFile", "JobsFileError", "Ledger", "LedgerBusyError", "LedgerError",
           "OutputClashError", "ReportWriteError", "RunLock", "RunSummary", "TraceOutcome", "load_jobs",
           "process_trace", "run_jobs"]
