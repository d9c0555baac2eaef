"""The limits of a question, defined once: the answerer enforces them, the CLI and the API schemas
declare them, the error messages quote them, and the page and widget read them from GET /api/config."""

from indexer.corpus import GAME_ID

MAX_QUESTION_CHARS = 1000
MIN_K, MAX_K, DEFAULT_K = 1, 20, 5
GAME_ID_PATTERN = GAME_ID.pattern
GAME_ID_MAX_CHARS = 64
MODES = ("dense", "lexical", "hybrid")  # checked once, by question.validate
DEFAULT_MODE = "hybrid"
# A question routed by retrieval among look-alike games asks the player to choose among this many.
AMBIGUOUS_GAMES = 3

__all__ = ["AMBIGUOUS_GAMES", "DEFAULT_K", "DEFAULT_MODE", "GAME_ID_MAX_CHARS", "GAME_ID_PATTERN", "MAX_K", "MAX_QUESTION_CHARS",
           "MIN_K", "MODES", "as_dict"]


def as_dict() -> dict:
    return {
        "max_question_chars": MAX_QUESTION_CHARS,
        "k": {"min": MIN_K, "max": MAX_K, "default": DEFAULT_K},
        "game_id_pattern": GAME_ID_PATTERN,
        "modes": list(MODES),
        "default_mode": DEFAULT_MODE,
    }
