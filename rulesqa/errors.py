"""The command line's own errors, and the one boundary where every domain error becomes a message for the person
at the terminal: one French line on stderr, exit code 2 (the packages below raise, never print or exit)."""

import typer
from typer.core import TyperGroup

from indexer.errors import RulesqaError

EXIT_USAGE = 2


class UsageError(RulesqaError):
    """Options of one command that cannot work together, or a value none of them accepts."""


class Commands(TyperGroup):
    """The `rulesqa` group: every command runs inside its `invoke`, so its errors are caught here, once."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except RulesqaError as exc:
            typer.echo(f"rulesqa: erreur : {exc}", err=True)
            raise typer.Exit(EXIT_USAGE) from None
