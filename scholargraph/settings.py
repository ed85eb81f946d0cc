"""A run's configuration: endpoints, keys, identity, cache policy, rate scale, where files live.

One immutable :class:`Settings` per run, built at the edge (the CLI, the Python API, the web app,
the LangGraph Server context) and carried by the run's context to every node and source agent;
nothing reads the environment behind a run's back, and nothing writes it. The environment
variables are the defaults: ``Settings()`` reads them, and explicit values win
(``Settings(no_cache=True)``, :meth:`Settings.with_variables`). So two runs with different
endpoints or keys can share one process.

Endpoints default to the official services and can each be pointed elsewhere (a mirror, a proxy,
the replay server of :mod:`scholargraph.testing`). Keys are ``SecretStr`` so they never print.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from pydantic import AliasChoices, Field, SecretStr, ValidationError
from pydantic.config import JsonDict
from pydantic_settings import BaseSettings, SettingsConfigDict

from scholargraph.errors import ConfigurationError


def _env(*names: str) -> AliasChoices:
    return AliasChoices(*names)


SHAPES_RUN: JsonDict = {"shapes_run": True}
"""Marks a setting that changes what a run finds or writes, given the same answers of the same
services (where the searches go, which pages are rendered, the embedding model) and that no run
option sets: the run record names it and its re-run command sets it (:meth:`Settings.shaping`).
The model, its structured-output method and context size and the library shape a run too, and
are carried by the run options that set them (``--model``...); keys never are (a re-run needs
the colleague's own), nor what only sets how patient, polite or cached this machine's requests
are (timeouts, rates, the user agent, the cache) or where its files live."""
SERVICE_ADDRESS: JsonDict = {**SHAPES_RUN, "service_address": True}
"""Marks a setting that shapes a run (:data:`SHAPES_RUN`) as the address a source sends its
requests to: the run record lists those that are not the official ones
(:meth:`Settings.changed_endpoints`), and an offline run's search log names them where the
replay server answered (:func:`scholargraph.runs.official_addresses`)."""


class Settings(BaseSettings):
    """Everything the environment may set. Each field names its variable."""

    # case_sensitive: only the documented upper-case variables are read, so HOME or MODEL in the
    # environment can never fill the fields named home or model.
    model_config = SettingsConfigDict(extra="ignore", populate_by_name=True, case_sensitive=True,
                                      frozen=True)

    pubmed_url: str = Field(
        "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/",
        json_schema_extra=SERVICE_ADDRESS,
        validation_alias=_env("SCHOLARGRAPH_PUBMED_URL"),
        description="E-utilities base; requests go to {url}esearch.fcgi and {url}efetch.fcgi",
    )
    arxiv_url: str = Field(
        "https://export.arxiv.org/api/query",
        json_schema_extra=SERVICE_ADDRESS,
        validation_alias=_env("SCHOLARGRAPH_ARXIV_URL"),
        description="arXiv API query endpoint",
    )
    openalex_url: str = Field(
        "https://api.openalex.org",
        json_schema_extra=SERVICE_ADDRESS,
        validation_alias=_env("SCHOLARGRAPH_OPENALEX_URL"),
        description="OpenAlex API root; requests go to {url}/works",
    )
    mp_url: str = Field(
        "https://api.materialsproject.org/",
        json_schema_extra=SERVICE_ADDRESS,
        validation_alias=_env("SCHOLARGRAPH_MP_URL"),
        description="Materials Project API root",
    )
    ddg_url: str | None = Field(
        None,
        json_schema_extra=SERVICE_ADDRESS,
        validation_alias=_env("SCHOLARGRAPH_DDG_URL"),
        description="Unset: ddgs chooses its backends. Set: DuckDuckGo HTML backend at this URL",
    )
    ddg_news_url: str | None = Field(
        None,
        json_schema_extra=SERVICE_ADDRESS,
        validation_alias=_env("SCHOLARGRAPH_DDG_NEWS_URL"),
        description="Unset: ddgs chooses its news backends (none while SCHOLARGRAPH_DDG_URL is "
        "set). Set: DuckDuckGo's news.js at this URL, its token page beside it",
    )
    chromium: str | None = Field(
        None,
        json_schema_extra=SHAPES_RUN,
        validation_alias=_env("SCHOLARGRAPH_CHROMIUM"),
        description="Chromium binary that renders pages needing a browser; unset: "
        "/usr/bin/chromium or chromium on PATH; 'none': never render",
    )
    web_mirror: str | None = Field(
        None,
        json_schema_extra=SERVICE_ADDRESS,
        validation_alias=_env("SCHOLARGRAPH_WEB_MIRROR"),
        description="Fetch web pages from {mirror}{host}/{path} instead of the live site "
        "(a local web archive, or the replay server)",
    )
    ncbi_api_key: SecretStr | None = Field(
        None, validation_alias=_env("NCBI_API_KEY"),
        description="NCBI API key: PubMed's rate rises from 3 to 10 requests a second")
    ncbi_email: str | None = Field(
        None, validation_alias=_env("NCBI_EMAIL"),
        description="A contact address sent to NCBI (and Crossref's polite pool), as they ask")
    openalex_api_key: SecretStr | None = Field(
        None, validation_alias=_env("OPENALEX_API_KEY"), description="OpenAlex API key")
    mp_api_key: SecretStr | None = Field(
        None, validation_alias=_env("MP_API_KEY"),
        description="Materials Project API key; without it the materials source is skipped")
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
        json_schema_extra=SHAPES_RUN,
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
    chroma_host: str | None = Field(
        None, validation_alias=_env("CHROMA_HOST"),
        description="A Chroma server's host, used instead of the embedded vector store")
    chroma_port: int = Field(8000, validation_alias=_env("CHROMA_PORT"),
                             description="The Chroma server's port (with CHROMA_HOST)")
    user_agent: str = Field(
        "scholargraph/0.1 (literature review tool; +https://pypi.org/project/scholargraph)",
        validation_alias=_env("SCHOLARGRAPH_USER_AGENT"),
        description="The User-Agent header sent to every service",
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

    structured_output: str | None = Field(
        None,
        validation_alias=_env("SCHOLARGRAPH_STRUCTURED_OUTPUT"),
        description="How to ask chat models for structured output: json_schema, tools or "
        "json_object; unset: chosen per server",
    )
    model_context: int | None = Field(
        None,
        validation_alias=_env("SCHOLARGRAPH_MODEL_CONTEXT"),
        description="The chat model's context size in tokens; unset: asked of the server",
    )
    model_timeout: float = Field(
        900.0,
        validation_alias=_env("SCHOLARGRAPH_MODEL_TIMEOUT"),
        gt=0,
        description="Seconds a chat model request may take before its step falls back to the "
        "deterministic engine with a note (each request is sent at most twice; a server that "
        "answers none of 3 requests in a row stops the run)",
    )
    rate_scale: float | None = Field(
        None,
        validation_alias=_env("SCHOLARGRAPH_RATE_SCALE"),
        description="Multiplies the rates (divides the backoff) of sources pointed at a mirror or "
        "the replay server; never applied to an official service",
    )
    library: str | None = Field(
        None,
        validation_alias=_env("SCHOLARGRAPH_LIBRARY"),
        description="Your own records (a file or folder), read whole, when a run names none",
    )
    endpoints: dict[str, str] = Field(
        default_factory=dict,
        description="Endpoint variables that are not fields here (a plug-in's own, such as "
        "SCHOLARGRAPH_CROSSREF_URL), by variable name: they win over the environment",
    )

    @property
    def models_path(self) -> Path:
        """Where models derived from installed ones are kept."""
        return self.models_dir or self.home / "models"

    def with_variables(self, values: Mapping[str, str]) -> Settings:
        """A copy with ``values`` (environment variable names, as the replay server gives them)
        applied: a variable read by a field sets that field, any other joins ``endpoints``."""
        fields = env_fields()
        update = {fields[name]: value for name, value in values.items() if name in fields}
        extra = {name: value for name, value in values.items() if name not in fields}
        data = {**self.model_dump(), **update, "endpoints": {**self.endpoints, **extra}}
        return type(self).model_validate(data)

    def variable(self, name: str) -> str | None:
        """The value in force of environment variable ``name`` for this run (``None`` when unset
        or blank): the field that reads it, else ``endpoints``. Variables this run does not carry
        (a plug-in's key) are not read here: see :meth:`SourceAgent.env <scholargraph.sources.base
        .SourceAgent>`."""
        field = env_fields().get(name)
        if field is None:
            return self.endpoints.get(name) or None
        value = getattr(self, field)
        if isinstance(value, SecretStr):
            value = value.get_secret_value()
        return str(value) if value else None

    def shaping(self) -> dict[str, str]:
        """The settings marked :data:`SHAPES_RUN` that are not at their defaults, by the
        variable that sets them, addresses without credentials or query: what a colleague's
        re-run must be given to do what this run did (``SCHOLARGRAPH_EMBEDDINGS=none``, a
        mirror's address), never a key."""
        variables = {field: variable for variable, field in env_fields().items()}
        return {variables[name]: value for name, value in self._changed("shapes_run").items()}

    def changed_endpoints(self) -> dict[str, str]:
        """The service addresses (:data:`SERVICE_ADDRESS`) that are not the official ones, by
        field name, without credentials or query: ``run.endpoints`` of a review."""
        return self._changed("service_address")

    def _changed(self, mark: str) -> dict[str, str]:
        """The fields marked ``mark`` whose values are not their defaults, by name, as a record
        may show them: an address (a service's, or any value with a scheme) without credentials
        or query, since a re-run command or ``review.json`` is shared."""
        changed = {}
        for name, info in type(self).model_fields.items():
            extra, value = info.json_schema_extra, getattr(self, name)
            if not isinstance(extra, dict) or not extra.get(mark) \
                    or value in (None, "", info.default):
                continue
            text = str(value)
            address = extra.get("service_address") or "://" in text
            changed[name] = without_credentials(text) if address else text
        return changed

    def secrets(self) -> list[str]:
        """The key values in force, so outputs can be checked and scrubbed of them."""
        keys = (self.ncbi_api_key, self.openalex_api_key, self.mp_api_key)
        return [key.get_secret_value() for key in keys if key and key.get_secret_value()]


@cache
def without_credentials(url: str) -> str:
    """``url`` without a user name, password, query or fragment."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc.rsplit("@", 1)[-1], parts.path, "", ""))


def service_addresses() -> list[str]:
    """The names of the fields marked :data:`SERVICE_ADDRESS`, in the order they are declared."""
    return [name for name, info in Settings.model_fields.items()
            if info.json_schema_extra == SERVICE_ADDRESS]


def env_fields() -> dict[str, str]:
    """Settings field name by the environment variable it reads."""
    fields: dict[str, str] = {}
    for name, info in Settings.model_fields.items():
        alias = info.validation_alias
        choices = alias.choices if isinstance(alias, AliasChoices) else [alias]
        fields.update((choice, name) for choice in choices if isinstance(choice, str))
    return fields


def get_settings(**overrides: object) -> Settings:
    """Settings as the environment says now, ``overrides`` winning: for the edges (CLI, API, app,
    Server context). A variable that does not parse is a :class:`ConfigurationError` naming it."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(str(part) for part in problem["loc"])
        raise ConfigurationError(f"{where}={problem.get('input')!r}: {problem['msg']}") from None
