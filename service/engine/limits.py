"""The limits of a question, defined once: the answerer enforces them, the CLI and the API schemas
declare them, the error messages quote them, and the page and widget read them from GET /api/config."""

from indexer.corpus import GAME_ID
from service.engine.retrieval.fusion import MODES

MAX_QUESTION_CHARS = 1000
MIN_K, MAX_K, DEFAULT_K = 1, 20, 5
GAME_ID_PATTERN = GAME_ID.pattern
GAME_ID_MAX_CHARS = 64
DEFAULT_MODE = "hybrid"

__all__ = ["DEFAULT_K", "DEFAULT_MODE", "GAME_ID_MAX_CHARS", "GAME_ID_PATTERN", "MAX_K", "MAX_QUESTION_CHARS",
           "MIN_K", "MODES", "as_dict"]


def as_dict() -> dict:
    return {
        "max_question_chars": MAX_QUESTION_CHARS,
        "k": {"min": MIN_K, "max": MAX_K, "default": DEFAULT_K},
        "game_id_pattern": GAME_ID_PATTERN,
        "modes": list(MODES),
        "default_mode": DEFAULT_MODE,
    }
