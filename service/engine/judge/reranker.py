"""The reranker, the judge's optional part (judge/order.py): a cross-encoder read from a local folder
(RULESQA_RERANKER).

No registry here ships a French cross-encoder, so none is the default; a club with a stronger model on
disk (a bge-reranker or mmarco folder saved by sentence-transformers) points RULESQA_RERANKER at it and
measures its gain with `rulesqa eval` (docs/EVAL.md). It re-orders the first TOP_N passages of the answer's
game by its own score, which then decides the abstention (Evidence.rerank, service/engine/calibration.py): a
calibration is measured per embedding model and reranker pair. It never downloads anything: a folder that
is not a cross-encoder, or one whose classification head is missing (a bare encoder, which transformers would
complete with a random head and so rank at random), is a ModelError at start.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path

from indexer.errors import ModelError

TOP_N = 20


class CrossEncoderReranker:
    def __init__(self, folder: Path, top_n: int = TOP_N, threads: int | None = None):
        folder = Path(folder).expanduser()
        if not (folder / "config.json").is_file():
            raise ModelError(f"réordonnanceur introuvable : {folder} n'est pas un dossier de modèle (config.json absent)")
        try:
            import torch
            from sentence_transformers import CrossEncoder

            if threads:
                torch.set_num_threads(threads)
            missing = _missing_weights(folder)
            self._model = CrossEncoder(str(folder), local_files_only=True, device="cpu")
        except Exception as exc:  # any unreadable folder means the same to the user
            raise ModelError(f"réordonnanceur illisible dans {folder} : {exc}") from None
        if missing:
            raise ModelError(f"réordonnanceur sans tête de classement entraînée dans {folder} (poids absents : "
                             f"{', '.join(missing[:4])}) : il classerait au hasard ; donnez un cross-encoder entraîné")
        self.top_n = top_n
        self.model_id = folder.name
        digest = hashlib.sha256()
        for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.stat().st_size < 1 << 30):
            digest.update(path.name.encode())
            digest.update(str(path.stat().st_size).encode())
        self._fingerprint = digest.hexdigest()[:16]

    def fingerprint(self) -> str:
        return self._fingerprint

    def scores(self, question: str, texts: list[str]) -> list[float]:
        """One relevance score in [0, 1] per text (the cross-encoder's sigmoid), for the question."""
        if not texts:
            return []
        import numpy as np

        out = self._model.predict([(question, t) for t in texts], show_progress_bar=False, convert_to_numpy=True)
        return [float(x) for x in np.asarray(out, dtype=np.float64).reshape(len(texts), -1)[:, -1]]

    def rerank(self, question: str, hits: list) -> list:
        """The first `top_n` hits in the judge's order, its score as theirs (ties keep retrieval's order)."""
        head, tail = hits[: self.top_n], hits[self.top_n:]
        judged = self.scores(question, [h.passage.text for h in head])
        order = sorted(range(len(head)), key=lambda i: (-judged[i], i))
        return [replace(head[i], score=judged[i]) for i in order] + tail


def _missing_weights(folder: Path) -> list[str]:
    """The weights of the folder's sequence-classification model that its files do not hold."""
    from transformers import AutoModelForSequenceClassification

    _, info = AutoModelForSequenceClassification.from_pretrained(str(folder), local_files_only=True,
                                                                 output_loading_info=True)
    return sorted(info.get("missing_keys", []))
