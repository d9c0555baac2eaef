"""Every RULESQA_* variable, read by one pydantic-settings class.

The caller builds it (`load_settings()` in each command, `create_app(settings)` for the API); nothing
reads the environment at import time, and the packages below (indexer, retrieval) receive plain values.
"""

from pathlib import Path
from typing import Annotated

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from indexer.errors import ModelError, RulesqaError
from indexer.models import default_threads

class ConfigError(RulesqaError):
    """A setting (environment variable or option) has an invalid value."""


REPO = Path(__file__).resolve().parents[2]
PREFIX = "RULESQA_"
# What an index is built with when the default family cannot be fetched or built, and what RULESQA_ADAPT adapts.
FALLBACK_FAMILY = "e5-small"


class Settings(BaseSettings):
    # env_ignore_empty: RULESQA_MODEL= (set but empty) means the default, as an unset variable does.
    model_config = SettingsConfigDict(env_prefix=PREFIX, extra="ignore", env_ignore_empty=True)

    index_dir: Path = Field(REPO / "var" / "index", description="Dossier de l'index.")
    corpus_dir: Path = Field(REPO / "corpus", description="Corpus, pour (re)construire l'index.")
    # A family of the model room (e5-small, rules-fr, embeddinggemma: indexer/models/registry.py), or any
    # sentence-transformers folder or name. Unset: the default family to build an index, the index's own model
    # to answer.
    model: str | None = Field(None, description="Modèle : e5-small, rules-fr, embeddinggemma ou un dossier "
                                                "sentence-transformers ; défaut : celui de l'index.")
    # An optional cross-encoder folder on disk (service/engine/judge/reranker.py); off by default, never downloaded.
    reranker: Path | None = Field(None, description="Dossier d'un cross-encoder sentence-transformers (facultatif).")
    # The learned ranker (service/engine/judge/learned.py), for a model family that has one: off by default
    # (below the regression gate's floors on the corpus games' test split), on for shelves of rulebooks unlike
    # them, where it measured +5.5 points of first passage on the eight new games (docs/EVAL.md).
    learned_ranker: bool = Field(False, description="Ordonner les premiers passages par le classeur appris.")
    # EmbeddingGemma's weights are under the Gemma Terms of Use (service/runtime/model_terms.py): true accepts them
    # (recorded in models_dir before its first fetch), false refuses them without asking; unset, they are asked
    # about on a terminal, and refused elsewhere. Refused, an index is built with e5-small when no model was named.
    accept_gemma_terms: bool | None = Field(None, description="Accepter les conditions d'utilisation de Gemma "
                                            "(EmbeddingGemma) ; non réglé : question dans un terminal, refus ailleurs.")
    cache_dir: Path | None = Field(REPO / "var" / "cache", description="Ce que le démarrage calcule une fois par modèle.")
    models_dir: Path = Field(REPO / "var" / "models", description="Où les modèles sont construits (un cache).")
    threads: int = Field(default_factory=default_threads, ge=1, le=64, description="Threads d'une inférence.")
    # The API is read-only, unauthenticated and uses no cookies, and the widget is meant to be embedded
    # on other sites: any origin by default. A site owner lists its own origins to restrict it.
    cors_origins: Annotated[list[str], NoDecode] = Field(default_factory=lambda: ["*"])
    max_body_bytes: int = Field(16 * 1024, ge=256, description="Taille maximale d'un corps de requête.")
    worker_threads: int = Field(8, ge=1, le=64, description="Questions traitées en même temps par l'API.")
    # Micro-batching (service/runtime/batching.py): concurrent questions share one inference.
    batch_max: int = Field(16, ge=1, le=256, description="Questions encodées ensemble au plus (1 : sans lots).")
    batch_wait_ms: float = Field(0.0, ge=0, le=50, description="Attente pour remplir un lot (0 : aucune).")
    build_index_if_missing: bool = True
    # Off by default: on the test split the adapted model did not beat the base one significantly (paired
    # test, `rulesqa eval --compare-adapt`, docs/EVAL.md); `rulesqa index --adapt` turns it on for one build.
    adapt: bool = Field(False, description="Adapter e5-small au corpus à l'indexation "
                                           "(indexer/models/e5/finetune.py).")
    # The questions log (service/questions_log/): no IP address, user agent or cookie is ever stored.
    log_questions: bool = Field(True, description="Enregistrer les questions et les avis.")
    retention_days: int = Field(90, ge=1, le=3650, description="Jours de conservation du journal.")
    database_url: str = Field(f"sqlite:///{REPO / 'var' / 'rulesqa.db'}", pattern=r"^(sqlite|postgresql)(\+\w+)?://",
                              description="Base du journal : SQLite (défaut) ou postgresql+psycopg://…")
    admin_token: str | None = Field(None, min_length=16, description="Active /admin ; jeton exigé pour y accéder.")
    # POST /api/admin/reload swaps in a new index version when this token is sent; unset: no such route.
    reload_token: str | None = Field(None, min_length=16, description="Jeton du rechargement de l'index.")
    # `rulesqa import`: a longer PDF is refused in one line (memory and time grow with the pages read).
    import_max_pages: int = Field(500, ge=1, le=100_000, description="Pages d'un PDF importé au plus.")
    # A Ray cluster (host:port of its head) for `rulesqa index` and `rulesqa serve` (docs/SCALE.md).
    ray_address: str | None = Field(None, pattern=r"^(auto|(ray://)?[\w.\-]+:\d+)$", description="Tête de la grappe Ray (hôte:port).")

    @field_validator("cors_origins", mode="before")
    @classmethod
    def _comma_separated(cls, value):
        # RULESQA_CORS_ORIGINS="https://a.example, https://b.example", or "*".
        if isinstance(value, str):
            return [origin.strip() for origin in value.split(",") if origin.strip()]
        return value

    @field_validator("index_dir", "corpus_dir", "models_dir", "cache_dir", "reranker", mode="after")
    @classmethod
    def _expand_user(cls, value: Path | None) -> Path | None:
        return value.expanduser() if value is not None else None

    def reranker_model(self):
        """The configured reranker (service/engine/judge/reranker.py), or None when RULESQA_RERANKER is unset."""
        if self.reranker is None:
            return None
        from service.engine.judge.reranker import CrossEncoderReranker

        return CrossEncoderReranker(self.reranker, threads=self.threads)

    def embedder(self, backend: str = "auto", progress: bool = True):
        """The configured embedding model as it is (its family's folder built on first use)."""
        from indexer.models import load_embedder

        return self.with_gemma_terms(lambda: load_embedder(self.model, models_dir=self.models_dir,
                                                           threads=self.threads, backend=backend, progress=progress))

    def with_gemma_terms(self, build):
        """`build()`, EmbeddingGemma's terms settled first if its fetch refuses for want of them: recorded by
        `accept_gemma_terms`, or asked on a terminal (service/runtime/model_terms.py)."""
        from service.runtime.model_terms import with_gemma_terms

        return with_gemma_terms(build, self.models_dir, self.accept_gemma_terms)

    def corpus_embedder(self, progress: bool = False, corpus: tuple | None = None):
        """The model to index the corpus with: the configured family (unset: the default one), e5-small
        adapted to the corpus when `adapt` is on (an adaptation the index at `index_dir` already holds is
        reused). When the default family cannot be fetched or built and no model was asked for, e5-small,
        said in one line. `corpus`: the corpus as `load_passages` read it, if read."""
        from indexer.model_for_index import corpus_embedder
        from indexer.models import find_family
        from indexer.models.registry import DEFAULT_NAMES

        family = find_family(self.model)
        if family is None:  # a sentence-transformers model, named: used as it is
            if self.adapt:
                raise ConfigError(f"RULESQA_ADAPT : l'adaptation au corpus ne vaut que pour {FALLBACK_FAMILY}")
            return self.embedder(progress=progress)
        if self.adapt and self.model not in DEFAULT_NAMES and family.name != FALLBACK_FAMILY:
            raise ConfigError(f"RULESQA_ADAPT : l'adaptation au corpus ne vaut que pour {FALLBACK_FAMILY}, "
                              f"pas pour {family.name}")

        def build(name: str):
            return self.with_gemma_terms(lambda: corpus_embedder(
                self.corpus_dir, self.models_dir, threads=self.threads, family=name, adapt=self.adapt,
                progress=progress, corpus=corpus, index_dir=self.index_dir))

        if self.adapt and family.name != FALLBACK_FAMILY:  # the default is another family: say whose it is
            import sys

            print(f"RULESQA_ADAPT : l'adaptation au corpus est celle de {FALLBACK_FAMILY} ; index construit avec "
                  f"{FALLBACK_FAMILY} adapté", file=sys.stderr, flush=True)
        try:
            return build(FALLBACK_FAMILY if self.adapt else family.name)
        except ModelError as exc:
            if self.model not in DEFAULT_NAMES or family.name == FALLBACK_FAMILY:
                raise
            import sys

            from indexer.models.gemma.terms import TermsNotAccepted

            why = (exc.short() if isinstance(exc, TermsNotAccepted)
                   else f"{family.model_id} indisponible ({exc})")
            print(f"attention : {why} ; index construit avec {FALLBACK_FAMILY} "
                  f"(RULESQA_MODEL={family.name} pour réessayer)", file=sys.stderr, flush=True)
            return build(FALLBACK_FAMILY)

    def index_embedder(self):
        """The model to answer with: the one inside the index at `index_dir`; IndexMismatchError when a family
        was asked for (RULESQA_MODEL) and the index holds another one. A sentence-transformers model named by
        RULESQA_MODEL is not inside the index: it is loaded as it is."""
        from indexer.model_for_index import index_embedder
        from indexer.models import find_family

        family = find_family(self.model) if self.model else None
        if self.model and family is None:
            return self.embedder()
        return index_embedder(self.index_dir, threads=self.threads, family=family.name if family else None)

    def build_environment(self) -> dict[str, str]:
        """These settings as RULESQA_* variables, for a child process (`rulesqa index`) that must build
        what this process would (service/runtime/startup.py)."""
        values = {"index_dir": self.index_dir, "corpus_dir": self.corpus_dir, "models_dir": self.models_dir,
                  "cache_dir": self.cache_dir, "threads": self.threads, "adapt": str(self.adapt).lower(),
                  "model": self.model,
                  "accept_gemma_terms": None if self.accept_gemma_terms is None
                  else str(self.accept_gemma_terms).lower()}
        return {PREFIX + name.upper(): str(value) for name, value in values.items() if value is not None}


def load_settings(**overrides) -> Settings:
    """Settings from the environment and explicit overrides (None = not given); an invalid value is a
    ConfigError naming its variable."""
    try:
        return Settings(**{k: v for k, v in overrides.items() if v is not None})
    except ValidationError as exc:
        first = exc.errors()[0]
        name = PREFIX + str(first["loc"][0]).upper() if first.get("loc") else PREFIX + "*"
        raise ConfigError(f"réglage invalide {name} : {first['msg']}") from None
