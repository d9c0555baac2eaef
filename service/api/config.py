"""Settings from the environment (prefix RULESQA_), built by create_app's caller, never at import."""

from pathlib import Path
from typing import Annotated

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from indexer import defaults


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="RULESQA_", extra="ignore")

    index_dir: Path = Field(default_factory=defaults.index_dir, description="Dossier de l'index.")
    corpus_dir: Path = Field(default_factory=defaults.corpus_dir, description="Corpus, pour (re)construire l'index.")
    model: str | None = Field(None, description="Modèle sentence-transformers ; défaut : e5-small local.")
    # The API is read-only, unauthenticated and uses no cookies, and the widget is meant to be embedded
    # on other sites: any origin by default. A site owner lists its own origins to restrict it.
    cors_origins: Annotated[list[str], NoDecode] = Field(default_factory=lambda: ["*"])
    max_body_bytes: int = Field(16 * 1024, ge=256, description="Taille maximale d'un corps de requête.")
    worker_threads: int = Field(2, ge=1, le=64, description="Questions encodées en parallèle (2 cœurs).")
    build_index_if_missing: bool = True

    @field_validator("cors_origins", mode="before")
    @classmethod
    def _comma_separated(cls, value):
        # RULESQA_CORS_ORIGINS="https://a.example, https://b.example", or "*".
        if isinstance(value, str):
            return [origin.strip() for origin in value.split(",") if origin.strip()]
        return value


def load_settings(**overrides) -> Settings:
    """Settings from the environment and explicit overrides; an invalid value is a ConfigError naming it."""
    from pydantic import ValidationError

    from indexer.errors import ConfigError

    try:
        return Settings(**{k: v for k, v in overrides.items() if v is not None})
    except ValidationError as exc:
        first = exc.errors()[0]
        name = "RULESQA_" + str(first["loc"][0]).upper() if first.get("loc") else "RULESQA_*"
        raise ConfigError(f"réglage invalide {name} : {first['msg']}") from None
