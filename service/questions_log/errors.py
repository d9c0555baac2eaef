"""The questions log's errors: a database that cannot be opened, read or written, and the requests at odds with
what it holds (the web layer turns them into statuses, service/web/errors.py)."""

from indexer.errors import RulesqaError


class LogStoreError(RulesqaError):
    """The questions log's database cannot be opened, read or written."""
