"""Process-wide settings read from the environment: endpoints, keys, identity and where files live.

Endpoints default to the official services and can each be pointed elsewhere (a mirror, a proxy,
the replay server of :mod:`scholargraph.testing`). Keys are ``SecretStr`` so they never print.
Settings are read when asked for, not cached at import, so a test or the ``--offline`` switch can
change the environment before a run.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


def _env(*names: str) -> AliasChoices:
    return AliasChoices(*names)


class Settings(BaseSettings):
    """Everything the environment may set. Each field names its variable."""

    # case_sensitive: only the documented upper-case variables are read, so HOME or MODEL in the
    # environment can never fill the fields named home or model.
    model_config = SettingsConfigDict(extra="ignore", populate_by_name=True, case_sensitive=True)

    pubmed_url: str = Field(
        "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/",
        validation_alias=_env("SCHOLARGRAPH_PUBMED_URL"),
        description="E-utilities base; requests go to {url}esearch.fcgi and {url}efetch.fcgi",
    )
    arxiv_url: str = Field(
        "https://export.arxiv.org/api/query",
        validation_alias=_env("SCHOLARGRAPH_ARXIV_URL"),
        description="arXiv API query endpoint",
    )
    openalex_url: str = Field(
        "https://api.openalex.org",
        validation_alias=_env("SCHOLARGRAPH_OPENALEX_URL"),
        description="OpenAlex API root; requests go to {url}/works",
    )
    mp_url: str = Field(
        "https://api.materialsproject.org/",
        validation_alias=_env("SCHOLARGRAPH_MP_URL"),
        description="Materials Project API root",
    )
    ddg_url: str | None = Field(
        None,
        validation_alias=_env("SCHOLARGRAPH_DDG_URL"),
        description="Unset: ddgs chooses its backends. Set: DuckDuckGo HTML backend at this URL",
    )
    ddg_news_url: str | None = Field(
        None,
        validation_alias=_env("SCHOLARGRAPH_DDG_NEWS_URL"),
        description="Unset: ddgs chooses its news backends (none while SCHOLARGRAPH_DDG_URL is "
        "set). Set: DuckDuckGo's news.js at this URL, its token page beside it",
    )
    chromium: str | None = Field(
        None,
        validation_alias=_env("SCHOLARGRAPH_CHROMIUM"),
        description="Chromium binary that renders pages needing a browser; unset: "
        "/usr/bin/chromium or chromium on PATH; 'none': never render",
    )
    web_mirror: str | None = Field(
        None,
        validation_alias=_env("SCHOLARGRAPH_WEB_MIRROR"),
        description="Fetch web pages from {mirror}{host}/{path} instead of the live site "
        "(a local web archive, or the replay server)",
    )
    ncbi_api_key: SecretStr | None = Field(None, validation_alias=_env("NCBI_API_KEY"))
    ncbi_email: str | None = Field(None, validation_alias=_env("NCBI_EMAIL"))
    openalex_api_key: SecretStr | None = Field(None, validation_alias=_env("OPENALEX_API_KEY"))
    mp_api_key: SecretStr | None = Field(None, validation_alias=_env("MP_API_KEY"))
    model: str | None = Field(
        None, validation_alias=_env("SCHOLARGRAPH_MODEL"), description="Default chat model"
    )
    home: Path = Field(
        default_factory=lambda: Path.home() / ".scholargraph",
        validation_alias=_env("SCHOLARGRAPH_HOME"),
        description="Where the vector store, HTTP cache and checkpoints live",
    )
    embedding_model: str | None = Field(
        None,
        validation_alias=_env("SCHOLARGRAPH_EMBEDDINGS"),
        description="Unset or 'all-MiniLM-L6-v2-int8': the bundled all-MiniLM-L6-v2 in ONNX "
        "Runtime with int8 arithmetic (no PyTorch); 'all-MiniLM-L6-v2': the same model in "
        "PyTorch; 'openai:MODEL' for OpenAI embeddings; a sentence-transformers model name or "
        "path; 'none' to rank lexically only (see scholargraph.rag.embeddings)",
    )
    store_dir: Path | None = Field(
        None,
        validation_alias=_env("SCHOLARGRAPH_STORE"),
        description="Folder of the embedded Chroma vector store; unset: {home}/chroma",
    )
    models_dir: Path | None = Field(
        None,
        validation_alias=_env("SCHOLARGRAPH_MODELS"),
        description="Where models derived from installed ones are kept (the int8 embedding "
        "model); unset: {home}/models",
    )
    checkpoint_url: str | None = Field(
        None,
        validation_alias=_env("SCHOLARGRAPH_CHECKPOINT_URL"),
        description="postgresql://... to keep run checkpoints in Postgres instead of SQLite",
    )
    chroma_host: str | None = Field(None, validation_alias=_env("CHROMA_HOST"))
    chroma_port: int = Field(8000, validation_alias=_env("CHROMA_PORT"))
    user_agent: str = Field(
        "scholargraph/0.1 (literature review tool; +https://pypi.org/project/scholargraph)",
        validation_alias=_env("SCHOLARGRAPH_USER_AGENT"),
    )
    timeout_s: float = Field(
        30.0, validation_alias=_env("SCHOLARGRAPH_TIMEOUT"), description="Per-request timeout"
    )
    no_cache: bool = Field(
        False,
        validation_alias=_env("SCHOLARGRAPH_NO_CACHE"),
        description="Bypass the on-disk cache of service answers ({home}/http-cache.sqlite): "
        "nothing is read from it or written to it (the CLI's --no-cache)",
    )

    def secrets(self) -> list[str]:
        """The key values in force, so outputs can be checked and scrubbed of them."""
        keys = (self.ncbi_api_key, self.openalex_api_key, self.mp_api_key)
        return [key.get_secret_value() for key in keys if key and key.get_secret_value()]


def get_settings() -> Settings:
    """Settings as the environment says now."""
    return Settings()
