"""The engine's own errors: what a caller asked that cannot be answered as given."""

from indexer.errors import RulesqaError


class QuestionError(RulesqaError):
    """A question or a search parameter that cannot be answered as given."""
