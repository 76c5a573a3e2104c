"""The exceptions of the analysis: callers (the CLI, the server's worker) map them to their own
words and statuses."""

from __future__ import annotations


class AnalysisError(Exception):
    """Base class of the analysis's errors."""


class UnavailableDepth(AnalysisError, ValueError):
    """A search depth the evaluator does not offer (a ``ValueError`` too)."""
