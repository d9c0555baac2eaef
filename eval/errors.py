"""The evaluation's own errors."""

from indexer.errors import RulesqaError


class EvalError(RulesqaError):
    """An evaluation asked in a way that would spoil it, such as tuning on the test split."""
