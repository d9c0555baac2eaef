"""Domain exceptions. They carry a message meant for a person; the edges (CLI, HTTP) print them."""


class RulesqaError(Exception):
    """Base of every error the edges turn into a readable message."""


class FileLineError(RulesqaError):
    """A problem at a line of a file a person edits. The message starts with FILE:LINE."""

    def __init__(self, path, line: int, message: str):
        self.path = str(path)
        self.line = line
        self.reason = message
        super().__init__(f"{self.path}:{line}: {message}")


class CorpusError(FileLineError):
    """A corpus file is unreadable or malformed."""


class UnknownGameError(RulesqaError):
    """A game id that the corpus does not hold."""

    def __init__(self, game: str, known: list[str]):
        self.game = game
        self.known = list(known)
        # A shelf has thousands of games: the message names a few and says how many.
        shown = ", ".join(self.known[:20]) + (f" … ({len(self.known)} jeux)" if len(self.known) > 20 else "")
        super().__init__(f"jeu inconnu : {game!r} ; jeux connus : {shown}")


class ModelError(RulesqaError):
    """The embedding model cannot be built or loaded."""


class IndexMismatchError(RulesqaError):
    """The index folder is missing, corrupt, or was built for other code, model or corpus."""






class PdfError(RulesqaError):
    """A rulebook PDF that cannot be imported: not a PDF, encrypted, corrupt, empty, without text."""



class ClusterError(RulesqaError):
    """A Ray cluster that cannot be used: ray not installed, address unreachable, a task that failed."""
