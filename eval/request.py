"""What `rulesqa eval` is asked, as one value: its options, the combinations refused before anything is loaded,
the questions asked, and the workflow they name (eval/workflows.py runs it)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from eval.errors import EvalError
from eval.gold import SPLITS, GoldQuestion
from eval.new_games import SPLIT as NEW_GAMES
from eval.publishers import SPLITS as PUBLISHERS
from eval.publishers import TEXTS as PUBLISHERS_TEXTS
from service.engine.limits import MODES

# Test and new-games together, for a decision between two indexes that holds beyond one set of games.
POOLED = "pooled"
ALL_MODES = "all"


@dataclass(frozen=True)
class EvalRequest:
    split: str = "test"
    mode: str = ALL_MODES
    questions: Path | None = None
    calibrate: bool = False
    leave_one_game_out: bool = False
    ablation: bool = False
    reranker: Path | None = None
    compare_adapt: bool = False
    compare_index: Path | None = None
    outcomes: Path | None = None
    report: Path | None = None
    index_dir: Path | None = None
    model: str | None = None
    publishers_text: str = "import"  # how the publishers' rulebooks are read (eval.publishers.TEXTS)

    @property
    def workflow(self) -> str:
        """The one thing asked, by precedence: a comparison, else a calibration, else the measure."""
        if self.compare_adapt:
            return "compare-adapt"
        if self.compare_index is not None:
            return "compare-index"
        return "calibrate" if self.calibrate else "measure"

    @property
    def modes(self) -> tuple[str, ...]:
        return MODES if self.mode == ALL_MODES else (self.mode,)

    def check(self) -> None:
        """EvalError for the first combination that cannot work, in the order a person reads the options."""
        for refused, message in self._refusals():
            if refused:
                raise EvalError(message)

    def _refusals(self) -> list[tuple[bool, str]]:
        new_games = self.split in (NEW_GAMES, *PUBLISHERS)
        return [
            (self.split == POOLED and self.compare_index is None,
             "--split pooled (test et new-games ensemble) ne vaut qu'avec --compare-index"),
            (self.split not in (*SPLITS, NEW_GAMES, *PUBLISHERS, POOLED),
             f"split inconnu « {self.split} » (dev, test, {NEW_GAMES}, {' ou '.join(PUBLISHERS)} ; "
             "pooled avec --compare-index)"),
            (new_games and bool(self.questions or self.calibrate or self.compare_adapt or self.leave_one_game_out),
             f"--split {self.split} mesure des jeux hors corpus : sans --questions, --calibrate, --compare-adapt "
             "ni --leave-one-game-out"),
            (self.publishers_text not in PUBLISHERS_TEXTS,
             f"--publishers-text inconnu « {self.publishers_text} » ({', '.join(PUBLISHERS_TEXTS)})"),
            (self.publishers_text != "import" and self.split not in PUBLISHERS,
             "--publishers-text ne vaut qu'avec --split publishers-dev ou publishers-test"),
            (self.mode not in (*MODES, ALL_MODES), f"mode inconnu « {self.mode} » ({', '.join(MODES)} ou all)"),
            (self.compare_adapt and bool(self.calibrate or self.model or self.leave_one_game_out),
             "--compare-adapt compare les deux modèles e5 : sans --calibrate, --model ni --leave-one-game-out"),
            (self.leave_one_game_out and bool(self.calibrate or self.model),
             "--leave-one-game-out mesure l'adaptation d'e5 : sans --calibrate ni --model"),
        ]

    def gold(self) -> list[GoldQuestion] | None:
        """The questions asked: the file's or the split's; None for the new games (their questions come with their
        index, eval/systems.py) and for pooled splits (each loaded in turn)."""
        from eval.gold import load_questions

        if self.split in (NEW_GAMES, *PUBLISHERS, POOLED):
            return None
        return load_questions(self.questions or self.split)
