"""The command line: ``scholargraph review "QUESTION" --out DIR [options]``,
``scholargraph screen LIBRARY --question Q --out DIR`` to screen a library with a person,
``scholargraph serve`` for the live review page, and ``scholargraph cache info|clear``.

Exit codes: 0 on success (also when some sources failed: ``review.json`` says which), 2 on bad
input with a one-line reason on stderr, 1 on any other failure.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable
from dataclasses import fields
from typing import TYPE_CHECKING, Any, NoReturn

from scholargraph.errors import (
    ConfigurationError,
    FilesNotWritten,
    InputError,
    ScholargraphError,
)
from scholargraph.wording import counted

if TYPE_CHECKING:
    from pathlib import Path

    from scholargraph.report import Report

EXIT_OK, EXIT_FAILURE, EXIT_BAD_INPUT = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line and exits 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"scholargraph: error: {message}\n")


def _source_list(text: str) -> list[str]:
    names = [name.strip().lower() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError("--sources needs at least one source name")
    return names


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows each option's default, except where there is none to show."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default in (None, False) or action.default is argparse.SUPPRESS:
            return action.help
        return super()._get_help_string(action)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("scholargraph")
    except PackageNotFoundError:  # run from a source tree that was not installed
        return "unknown (not installed)"


ARGUMENT_TYPES: dict[str, Callable[[str], Any]] = {"source_list": _source_list}


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """One ``--flag`` per run option that the schema (:class:`ReviewOptions`) marks for the
    command line, with its description and default; a yes/no option is a switch."""
    from scholargraph.options import ReviewOptions

    for option in fields(ReviewOptions):
        if option.metadata.get("cli") is None:
            continue
        flag, spec = _cli_spec(option)
        kwargs: dict[str, Any] = {"dest": option.name, "default": option.default,
                                  "help": option.metadata["description"]}
        if option.default is False:
            kwargs["action"] = "store_true"
        parser.add_argument(flag, **kwargs, **spec)


def _cli_spec(option: Any) -> tuple[str, dict[str, Any]]:
    """An option's flag and its extra ``argparse`` settings, as the schema declares them."""
    spec = dict(option.metadata["cli"])
    flag = spec.pop("flag", "--" + option.name.replace("_", "-"))
    if isinstance(spec.get("type"), str):
        spec["type"] = ARGUMENT_TYPES[spec["type"]]
    return flag, spec


def add_update_options(parser: argparse.ArgumentParser) -> None:
    """The run options ``scholargraph update`` takes, from the schema (each option's
    ``update`` role): every option it carries from the review can be given instead, a carried
    yes/no option both ways (``--snowball``/``--no-snowball``, ``--offline``/``--online``);
    one not given is left unset (None), which leaves it to the review."""
    from scholargraph.context import GIVEN
    from scholargraph.options import ReviewOptions, negation_flag

    for option in fields(ReviewOptions):
        role = option.metadata.get("update")
        if role is None:
            continue
        flag, spec = _cli_spec(option)
        flag = option.metadata.get("update_flag") or flag
        text = option.metadata.get("update_help") or option.metadata["description"]
        if role != GIVEN and not option.metadata.get("update_help"):
            text += " (default: the review's own)"
        if option.default is not False:
            parser.add_argument(flag, dest=option.name, default=None, help=text, **spec)
        elif role == GIVEN:
            parser.add_argument(flag, dest=option.name, action="store_true", help=text)
        else:
            either = parser.add_mutually_exclusive_group()
            either.add_argument(flag, dest=option.name, action="store_const", const=True,
                                default=None, help=text)
            either.add_argument(negation_flag(option.name), dest=option.name,
                                action="store_const", const=False, default=None,
                                help=f"not {flag}, whatever the review was run with")


def run_options(args: argparse.Namespace) -> dict[str, Any]:
    """The run options the command line was given, by name."""
    from scholargraph.options import ReviewOptions

    return {option.name: getattr(args, option.name) for option in fields(ReviewOptions)
            if option.metadata.get("cli") is not None}


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="scholargraph", description="Cited, deduplicated literature reviews.",
                     formatter_class=_HelpFormatter)
    parser.add_argument("--version", action="version", version=f"scholargraph {_version()}")
    commands = parser.add_subparsers(dest="command", parser_class=_Parser,
                                     metavar="{" + ",".join(COMMANDS) + "}")
    run = commands.add_parser("review", help="run a literature review",
                              formatter_class=_HelpFormatter)
    run.add_argument("question", help="the research question, in quotes")
    run.add_argument("--out", required=True, help="directory for review.md, review.json, ...")
    add_run_options(run)
    run.add_argument("--quiet", action="store_true", help="print nothing but errors")
    run.add_argument("--events", choices=["jsonl"], default=None,
                     help="print one JSON object per step on standard output, for machines")
    run.add_argument("--debug", action="store_true", help="log details and show tracebacks")
    add_update_command(commands)
    add_screen_command(commands)
    page = commands.add_parser("serve", help="start the live review page in a local web server",
                               formatter_class=_HelpFormatter)
    page.add_argument("--host", default="127.0.0.1",
                      help="address to listen on (127.0.0.1: this machine only)")
    page.add_argument("--port", type=int, default=8765, help="port to listen on")
    page.add_argument("--offline", action="store_true",
                      help="every review searches the recorded corpus (no network needed)")
    page.add_argument("--max-running", type=int, default=None,
                      help="reviews run at once; more wait their turn (default: one per CPU, "
                           "at most 4)")
    page.add_argument("--debug", action="store_true", help="log details and show tracebacks")
    thread = commands.add_parser(
        "thread", help="write the review of a LangGraph Studio or Server thread",
        formatter_class=_HelpFormatter)
    thread.add_argument("thread_id", help="the thread's id, as Studio or the SDK shows it")
    thread.add_argument("--out", required=True, help="directory for review.md, review.json, ...")
    thread.add_argument("--server", default="http://127.0.0.1:2024",
                        help="the server's address (langgraph dev's by default)")
    thread.add_argument("--debug", action="store_true", help="log details and show tracebacks")
    cache = commands.add_parser("cache", help="show or clear the on-disk cache of service answers",
                                formatter_class=_HelpFormatter)
    cache.add_argument("action", choices=["info", "clear"],
                       help="info: where the cache is and what it holds; clear: delete it")
    cache.add_argument("--debug", action="store_true", help="log details and show tracebacks")
    return parser


def progress_callback(args: argparse.Namespace):
    """What to do with each step: JSON lines on stdout, readable lines on stderr, or nothing."""
    from scholargraph.progress import JsonlEvents, ProgressPrinter

    if args.events == "jsonl":
        return JsonlEvents(sys.stdout)
    return None if args.quiet else ProgressPrinter()


def ask_plan_decision(plan: dict[str, Any]) -> dict[str, Any]:
    """Show the plan on stderr and read the person's decision from stdin."""
    err = sys.stderr
    print(f"\nPlan for: {plan['question']}", file=err)
    for number, text in enumerate(plan["sub_questions"], 1):
        print(f"  {number}. {text}", file=err)
    print(f"Sources: {', '.join(plan['sources'])}", file=err)
    action = _ask("Accept, edit or reject the plan? [a/e/r] ").lower()[:1]
    if action == "r":
        return {"action": "reject", "reason": _ask("Reason (optional): ")}
    if action != "e":
        return {"action": "accept"}
    print("Sub-questions, one per line; an empty line ends (Enter at once keeps them):", file=err)
    lines = list(iter(lambda: _ask("  > "), ""))
    sources = _ask(f"Sources, comma-separated (Enter keeps {','.join(plan['sources'])}): ")
    return {"action": "edit", "sub_questions": lines or None,
            "sources": [s.strip() for s in sources.split(",") if s.strip()] or None}


def _ask(prompt: str) -> str:
    print(prompt, end="", file=sys.stderr, flush=True)
    line = sys.stdin.readline()
    if not line:
        raise InputError("--approve-plan needs an answer on standard input, and it was closed")
    return line.strip()


def run_review(args: argparse.Namespace) -> int:
    from scholargraph.api import start_review
    from scholargraph.exports.files import prepare_out_dir
    from scholargraph.runs import PendingApproval

    run = start_review(args.question, on_progress=progress_callback(args), **run_options(args))
    prepare_out_dir(args.out)
    outcome = run.start()
    while isinstance(outcome, PendingApproval):
        outcome = run.resume(ask_plan_decision(outcome.plan))
    written = write_review_files(outcome, args.out)
    if written is None:
        return EXIT_FAILURE
    if not args.quiet:
        failed = ", ".join(f.source for f in outcome.sources_failed)
        print(wrote_line(outcome, args.out, written)
              + (f"; failed sources: {failed}" if failed else "")
              + (f"; {outcome.stop_reason}" if outcome.stop_reason.startswith("plan rejected")
                 else ""), file=sys.stderr)
    return EXIT_OK


def write_review_files(report: Report, out: str | Path) -> dict[str, Path] | None:
    """The review's files written to ``out``; None, each file not written said on its own line,
    when one could not be."""
    try:
        return report.write(out)
    except FilesNotWritten as exc:
        say_not_written(exc)
        return None


def say_not_written(exc: FilesNotWritten) -> None:
    """Each file a review could not write, on its own line."""
    for item in exc.not_written:
        print(f"scholargraph: not written: {item.path}: {item.reason}", file=sys.stderr)


def wrote_line(report: Report, out: str | Path, written: dict[str, Path]) -> str:
    """"wrote DIR/review.md and 8 more files: 27 works screened, ...", as review and thread
    end."""
    counts = report.counts
    return (f"wrote {out}/review.md and {len(written) - 1} more files: "
            f"{counted(counts.screened, 'work')} screened, {counts.included} included, "
            f"{counted(counts.findings, 'finding')}, {counted(counts.cited_works, 'reference')}")


def add_update_command(commands: Any) -> None:
    """``scholargraph update DIR [--since DATE]``: the review in DIR, with what was added since."""
    update = commands.add_parser(
        "update", formatter_class=_HelpFormatter,
        help="add to a review what the services added since it was run")
    update.add_argument("directory", metavar="DIR", help="the folder a review was written to")
    update.add_argument("--since", metavar="DATE", default=None, dest="added_since",
                        help="search for records added from this day, YYYY-MM-DD (default: "
                             "the review's day)")
    add_update_options(update)
    update.add_argument("--quiet", action="store_true", help="print nothing but errors")
    update.add_argument("--events", choices=["jsonl"], default=None,
                        help="print one JSON object per step on standard output, for machines")
    update.add_argument("--debug", action="store_true", help="log details and show tracebacks")


def run_update(args: argparse.Namespace) -> int:
    from scholargraph.options import option_words as _words
    from scholargraph.options import update_options
    from scholargraph.updating import update

    options = {name: getattr(args, name) for name in update_options()}
    years = (options.pop("since"), options.pop("until"))  # publication years, not the day
    try:
        report = update(args.directory, since=args.added_since, years=years,
                        on_progress=progress_callback(args), **options)
    except FilesNotWritten as exc:
        say_not_written(exc)
        return EXIT_FAILURE
    if not args.quiet and report.update is not None:
        change = report.update
        cited = {ref.work_id for ref in report.references}
        new_cited = sum(work_id in cited for work_id in change.new_work_ids)
        flagged = _count(len(change.flags), "retraction or correction",
                         "retractions or corrections")
        flags = f"; {flagged} flagged at the top" if change.flags else ""
        if change.options_kept or change.options_given:
            kept = [_words(name, value) for name, value in change.options_kept.items()]
            given = [_words(name, value) for name, value in change.options_given.items()]
            print("update run with " + "; ".join(filter(None, [
                f"the review's own {', '.join(kept)}" if kept else "",
                f"{', '.join(given)} given instead of the review's" if given else ""])),
                file=sys.stderr)
        print(f"updated {args.directory}/review.md since {change.since}: "
              f"{_count(len(change.new_work_ids), 'new work')} ({new_cited} cited), "
              f"{_count(len(change.joined), 'new version')} joined, "
              f"{_count(len(change.new_findings), 'new finding')}{flags}; earlier files in "
              f"{args.directory}/{report.history[-1].files}", file=sys.stderr)
    return EXIT_OK


def _count(number: int, one: str, many: str | None = None) -> str:
    """'1 new work', '8 new works'."""
    return f"{number} {one if number == 1 else many or one + 's'}"


def add_screen_command(commands: Any) -> None:
    """``scholargraph screen LIBRARY --question Q [--criteria FILE] [--labels FILE] --out DIR``."""
    from scholargraph.screening.session import BATCH

    screen = commands.add_parser(
        "screen", help="rank a library for screening, learning from your include/exclude labels",
        formatter_class=_HelpFormatter)
    screen.add_argument("library", help="a file or folder: BibTeX, RIS, MEDLINE (.nbib), "
                        "EndNote (.enw), PubMed/EndNote XML, CSL-JSON, JSONL, PDF, JATS, or a "
                        "CSV/TSV with "
                        "title and abstract columns")
    screen.add_argument("--question", required=True, help="the review's question")
    screen.add_argument("--criteria", default=None,
                        help="the eligibility criteria: a text file, or the text in quotes")
    screen.add_argument("--labels", default=None,
                        help="CSV of record id (or DOI) and 1 (include) or 0 (exclude); "
                             "--interactive appends to it (and creates it)")
    screen.add_argument("--out", required=True, help="directory for screening.csv, "
                        "to-screen.ris, included.ris and summary.json")
    screen.add_argument("--batch", type=int, default=BATCH, help="works in to-screen.ris")
    screen.add_argument("--interactive", action="store_true",
                        help="screen in the terminal, one record at a time (needs --labels)")
    screen.add_argument("--quiet", action="store_true", help="print nothing but errors")
    screen.add_argument("--debug", action="store_true", help="log details and show tracebacks")


def run_screen(args: argparse.Namespace) -> int:
    from scholargraph.screening.session import open_session

    if args.interactive and not args.labels:
        raise InputError("--interactive needs --labels FILE, where every decision is saved")
    if args.batch < 1:
        raise InputError("--batch must be at least 1")
    from scholargraph.progress import StepLines

    session = open_session(args.library, args.question, args.criteria, args.labels,
                           create_labels=args.interactive, out=args.out,
                           progress=(lambda line: None) if args.quiet else StepLines())
    if args.interactive:
        from scholargraph.screening.interactive import run_interactive

        run_interactive(session, out=args.out, batch=args.batch)
    paths = session.write(args.out, args.batch)
    for warning in session.warnings:
        print(f"scholargraph: warning: {' '.join(warning.split())}", file=sys.stderr)
    if not args.quiet:
        for line in session.summary_lines():
            print(line, file=sys.stderr)
        print(f"wrote {paths['screening.csv']} and {len(paths) - 1} more files", file=sys.stderr)
    return EXIT_OK


def run_serve(args: argparse.Namespace) -> int:
    from scholargraph.webapp import serve

    print(f"scholargraph: the review page is at http://{args.host}:{args.port}/ "
          "(Ctrl+C stops it)", file=sys.stderr)
    options = {"max_running": args.max_running} if args.max_running else {}
    serve(args.host, args.port, offline=args.offline,
          log_level="debug" if args.debug else "info", **options)
    return EXIT_OK


def one_line(exc: BaseException) -> str:
    """An exception's message folded onto one line, as the exit-code contract promises."""
    return " ".join(str(exc).split())


def run_cache(args: argparse.Namespace) -> int:
    from scholargraph.http.cache import cache_summary, clear_cache
    from scholargraph.settings import get_settings

    settings = get_settings()
    if args.action == "clear":
        removed = clear_cache(settings)
        print(f"scholargraph: removed {removed} cached answers ({settings.home})", file=sys.stderr)
    else:
        print(cache_summary(settings))
    return EXIT_OK


def run_thread(args: argparse.Namespace) -> int:
    from scholargraph.exports.files import prepare_out_dir
    from scholargraph.studio import fetch_thread, thread_report

    values, context = fetch_thread(args.server, args.thread_id)
    report = thread_report(values, context)
    prepare_out_dir(args.out)
    written = write_review_files(report, args.out)
    if written is None:
        return EXIT_FAILURE
    print(wrote_line(report, args.out, written), file=sys.stderr)
    return EXIT_OK


COMMANDS = {"review": run_review, "update": run_update, "screen": run_screen,
            "serve": run_serve, "thread": run_thread, "cache": run_cache}


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_OK
    handler = logging.StreamHandler()
    handler.setLevel(logging.DEBUG if args.debug else logging.WARNING)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.DEBUG if args.debug else logging.WARNING,
                        handlers=[handler])
    try:
        return COMMANDS[args.command](args)
    except (InputError, ConfigurationError) as exc:
        print(f"scholargraph: error: {one_line(exc)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except ScholargraphError as exc:
        if args.debug:
            raise
        print(f"scholargraph: failed: {one_line(exc)}", file=sys.stderr)
        return EXIT_FAILURE
    except KeyboardInterrupt:
        print("scholargraph: interrupted", file=sys.stderr)
        return EXIT_FAILURE
    except Exception as exc:
        if args.debug:
            raise
        print(f"scholargraph: failed: {type(exc).__name__}: {one_line(exc)} (rerun with --debug "
              "for details)", file=sys.stderr)
        return EXIT_FAILURE


if __name__ == "__main__":
    sys.exit(main())
