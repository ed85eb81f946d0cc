"""The live review page (``scholargraph serve``), served by uvicorn on loopback against the replay
server: driven in headless Chromium end to end, and over plain HTTP for bad input.

OpenAlex answers through a gate the test opens, so the page is seen showing steps while the
review is provably still running, without any sleep or timing guess.
"""

from __future__ import annotations

import html
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import pytest
import requests
import uvicorn

from scholargraph.agents.schemas import Finding, Quote, SubQuestion
from scholargraph.records import Passage, Work
from scholargraph.report import Reference, Report
from scholargraph.testing import ReplayServer
from scholargraph.testing.server import ReplayRequest, ReplayResponse, ServiceHandler
from scholargraph.testing.services.openalex import OpenAlexService
from scholargraph.webapp import create_app, render
from scholargraph.webapp.reviews import EventLog, WebReview

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]
QUESTION = "What is known about genetic variants and screening?"
GATE_TIMEOUT_S = 60
RUN_TIMEOUT_MS = 180_000


class GatedService:
    """A recorded service whose answers wait until the test opens ``gate``."""

    def __init__(self, inner: ServiceHandler, gate: threading.Event) -> None:
        self.prefix = inner.prefix
        self.inner = inner
        self.gate = gate

    def handle(self, request: ReplayRequest) -> ReplayResponse:
        self.gate.wait(GATE_TIMEOUT_S)
        return self.inner.handle(request)


@dataclass
class LivePage:
    url: str
    gate: threading.Event
    out_root: Path


def _free_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


@pytest.fixture
def live_page(tmp_path: Path) -> Iterator[LivePage]:
    """The app under uvicorn on a free loopback port, every source at the replay server and
    OpenAlex behind a closed gate."""
    gate = threading.Event()
    out_root = tmp_path / "reviews"
    with ReplayServer.default(extra=[GatedService(OpenAlexService(), gate)]) as replay, \
            replay.environment(SCHOLARGRAPH_HOME=str(tmp_path / "home"),
                               SCHOLARGRAPH_RATE_SCALE="1000"):
        sock = _free_socket()
        app = create_app(out_root=out_root, max_running=1)
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        deadline = time.monotonic() + 30
        while not server.started and thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert server.started, "uvicorn did not start"
        host, port = sock.getsockname()
        try:
            yield LivePage(f"http://{host}:{port}", gate, out_root)
        finally:
            gate.set()
            server.should_exit = True
            thread.join(timeout=30)
            sock.close()


@pytest.fixture
def chromium() -> Iterator[object]:
    if not CHROMIUM.exists():
        pytest.skip(f"Debian's Chromium is not installed at {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def _expected_link(paper: dict) -> str:
    """Where a reader should land for a work, as the review promises: DOI, arXiv, PubMed."""
    if paper["doi"]:
        return f"https://doi.org/{paper['doi']}"
    if paper["arxiv_id"]:
        return f"https://arxiv.org/abs/{paper['arxiv_id']}"
    return f"https://pubmed.ncbi.nlm.nih.gov/{paper['pmid']}/"


@pytest.mark.slow
def test_a_person_runs_a_review_on_the_page_and_reads_it(live_page: LivePage, chromium,
                                                         tmp_path: Path) -> None:
    context = chromium.new_context(accept_downloads=True)
    page = context.new_page()
    page.goto(live_page.url)

    page.click("#submit")
    page.wait_for_selector("#message:not([hidden])")
    assert "question is empty" in page.text_content("#message")

    page.fill("#question", QUESTION)
    page.click("#submit")
    page.wait_for_selector("#steps li:has-text('planning:')")
    run_dir = next(live_page.out_root.glob("*"), None)
    assert page.text_content("#status") == "running"
    assert page.inner_html("#review") == ""
    assert run_dir is None or not (run_dir / "review.json").exists()  # OpenAlex still held

    live_page.gate.set()
    page.wait_for_selector("#review article.review", timeout=RUN_TIMEOUT_MS)
    assert page.text_content("#status") == "finished"
    steps = page.locator("#steps li").all_text_contents()
    assert any("retrieval:" in step for step in steps)
    assert any("done:" in step for step in steps)

    with page.expect_download() as download_info:
        page.click("a[download='review.json']")
    review = json.loads(Path(download_info.value.path()).read_text(encoding="utf-8"))
    assert review["question"] == QUESTION
    links = page.locator(".downloads a").all_text_contents()
    assert {"review.md", "review.json", "references.bib", "references.ris",
            "references.csl.json"} <= set(links)

    pubmed_log = [entry for entry in review["search_log"] if entry["source"] == "pubmed"]
    row = page.locator("#source-counts tr[data-source='pubmed'] td").all_text_contents()
    assert row == ["pubmed", str(len(pubmed_log)), str(sum(e["n_results"] for e in pubmed_log)),
                   str(sum(e["status"] == "error" for e in pubmed_log))]
    assert page.locator("#source-counts tr[data-source='openalex']").count() == 1

    first_sub = review["sub_questions"][0]["id"]
    finding = next(f for f in review["findings"]
                   if f["kind"] == "finding" and f["sub_question_id"] == first_sub)
    item = page.locator("details.finding").first
    assert item.locator(".finding-text").text_content() == finding["text"]
    passage_box = item.locator("blockquote.passage").first
    assert not passage_box.is_visible()
    item.locator("summary").click()
    assert passage_box.is_visible()
    quote = finding["quotes"][0]
    passage = next(p for p in review["passages"] if p["id"] == quote["passage_id"])
    assert passage_box.text_content() == passage["text"]
    assert passage_box.locator("mark").text_content() == quote["text"]

    paper = next(p for p in review["papers"] if p["id"] == passage["work_id"])
    link = item.locator("a.work-link").first
    assert link.get_attribute("href") == _expected_link(paper)
    assert link.text_content() == paper["title"]
    number = next(r["number"] for r in review["references"] if r["work_id"] == paper["id"])
    assert paper["title"] in page.text_content(f"#ref-{number}")
    assert page.locator("details.finding").count() == len(review["findings"])

    page.screenshot(path=str(tmp_path / "review-page.png"), full_page=True)
    context.close()


@pytest.mark.slow
def test_a_person_edits_and_accepts_the_plan_on_the_page(live_page: LivePage, chromium) -> None:
    live_page.gate.set()
    page = chromium.new_page()
    page.goto(live_page.url)
    page.fill("#question", QUESTION)
    page.check("input[name=sources][value=pubmed]")
    page.check("input[name=sources][value=openalex]")
    page.check("#approve-plan")
    page.click("#submit")

    page.wait_for_selector("#approval:not([hidden])", timeout=RUN_TIMEOUT_MS)
    assert page.text_content("#status") == "waiting for your decision"
    assert page.is_checked("#plan-sources input[value=pubmed]")
    page.fill("#plan-questions", "Which genetic variants are screened for?\n\n")
    page.uncheck("#plan-sources input[value=pubmed]")
    page.click("#plan-accept")
    page.wait_for_selector("#approval", state="hidden")

    page.wait_for_selector("#review article.review", timeout=RUN_TIMEOUT_MS)
    assert page.text_content("#status") == "finished"
    review = json.loads(next(live_page.out_root.glob("*/review.json")).read_text("utf-8"))
    assert [q["text"] for q in review["sub_questions"]] == [
        "Which genetic variants are screened for?"]
    assert {entry["source"] for entry in review["search_log"]} == {"openalex"}
    page.close()


def _iter_events(response: requests.Response) -> Iterator[tuple[str, str, str | None]]:
    """(event, data, id) of each Server-Sent Event as it arrives, until the stream ends."""
    fields: dict[str, str] = {}
    for line in response.iter_lines(decode_unicode=True):
        if line:
            name, _, value = line.partition(": ")
            fields[name] = value
        elif fields:
            yield fields["event"], fields["data"], fields.get("id")
            fields = {}


def _read_events(response: requests.Response) -> list[tuple[str, str, str | None]]:
    """(event, data, id) of every Server-Sent Event until the stream ends."""
    return list(_iter_events(response))


def _until_plan(events: Iterator[tuple[str, str, str | None]]) -> dict:
    """Read steps until the one carrying the plan to approve; return that plan."""
    for kind, data, _ in events:
        step = json.loads(data)
        if kind == "step" and "approval" in step:
            return step["approval"]
    raise AssertionError("the stream ended without asking for a decision on the plan")


@pytest.mark.slow
def test_a_plan_is_approved_with_edits_over_http(live_page: LivePage, tmp_path: Path) -> None:
    """The run pauses after planning until the person decides; the edited plan is the one run."""
    live_page.gate.set()
    run = requests.post(f"{live_page.url}/reviews", json={
        "question": QUESTION, "sources": ["pubmed", "openalex"], "approve_plan": True},
        timeout=30).json()
    decision_url = f"{live_page.url}{run['page']}/decision"
    with requests.get(live_page.url + run["events"], stream=True, timeout=120) as stream:
        events = _iter_events(stream)
        plan = _until_plan(events)
        assert plan["sources"] == ["pubmed", "openalex"] and plan["sub_questions"]
        assert not list(live_page.out_root.glob("*/review.json"))  # nothing searched yet
        other = requests.post(f"{live_page.url}/reviews", json={"question": "Another one?",
                                                                 "sources": ["pubmed"]},
                              timeout=30)
        assert other.status_code == 202  # the paused review gave its place
        bad = requests.post(decision_url, json={"action": "maybe"}, timeout=30)
        assert bad.status_code == 400 and "plan decision not understood" in bad.json()["error"]
        edited = {"action": "edit", "sources": ["openalex"],
                  "sub_questions": ["Which genetic variants are screened for?"]}
        assert requests.post(decision_url, json=edited, timeout=30).status_code == 202
        late = requests.post(decision_url, json={"action": "accept"}, timeout=30)
        assert late.status_code == 409
        rest = list(events)
    assert rest[-1][0] == "finished"
    review = requests.get(f"{live_page.url}{run['page']}/files/review.json", timeout=30).json()
    assert [q["text"] for q in review["sub_questions"]] == edited["sub_questions"]
    assert {entry["source"] for entry in review["search_log"]} == {"openalex"}


@pytest.mark.slow
def test_a_rejected_plan_ends_the_run_without_searching(live_page: LivePage) -> None:
    live_page.gate.set()
    run = requests.post(f"{live_page.url}/reviews", json={
        "question": QUESTION, "sources": ["openalex"], "approve_plan": True}, timeout=30).json()
    with requests.get(live_page.url + run["events"], stream=True, timeout=120) as stream:
        events = _iter_events(stream)
        _until_plan(events)
        decided = requests.post(f"{live_page.url}{run['page']}/decision",
                                json={"action": "reject", "reason": "wrong question"},
                                timeout=30)
        assert decided.status_code == 202
        rest = list(events)
    assert rest[-1][0] == "finished"
    assert not any(json.loads(data).get("searches") for kind, data, _ in rest if kind == "step")


@pytest.mark.slow
def test_criteria_typed_on_the_page_screen_the_review(live_page: LivePage) -> None:
    """The criteria field's text reaches the run as its --criteria does on the command line,
    and the review keeps it."""
    live_page.gate.set()
    criteria = "Include studies of newborn screening. Exclude case reports."
    run = requests.post(f"{live_page.url}/reviews", json={
        "question": QUESTION, "sources": ["openalex"], "criteria": criteria}, timeout=30).json()
    with requests.get(live_page.url + run["events"], stream=True, timeout=300) as stream:
        rest = list(_iter_events(stream))
    assert rest[-1][0] == "finished"
    review = requests.get(f"{live_page.url}{run['page']}/files/review.json", timeout=30).json()
    assert review["criteria"] == criteria


@pytest.mark.slow
def test_the_event_stream_resumes_and_a_second_review_waits(live_page: LivePage) -> None:
    """With one place, a second review waits in the queue (it is not refused) and runs after."""
    started = requests.post(f"{live_page.url}/reviews", json={"question": QUESTION,
                                                               "sources": ["pubmed", "openalex"]},
                            timeout=30)
    assert started.status_code == 202, started.text
    run = started.json()

    second = requests.post(f"{live_page.url}/reviews", json={"question": "Another question?",
                                                              "sources": ["pubmed"]},
                           timeout=30)
    assert second.status_code == 202, second.text
    waiting = second.json()

    live_page.gate.set()
    with requests.get(live_page.url + run["events"], stream=True, timeout=120) as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        events = _read_events(stream)
    steps = [json.loads(data) for kind, data, _ in events if kind == "step"]
    assert [kind for kind, _, _ in events][-1] == "finished"
    assert {"intent", "planning", "pubmed", "openalex", "synthesis"} <= {s["node"] for s in steps}
    assert all(set(s) >= {"node", "round", "elapsed_s", "summary"} for s in steps)
    assert [s["elapsed_s"] for s in steps] == sorted(s["elapsed_s"] for s in steps)
    outcome = json.loads(events[-1][1])
    assert "review.json" in outcome["files"]
    with requests.get(live_page.url + waiting["events"], stream=True, timeout=120) as stream:
        later = _read_events(stream)
    assert [kind for kind, _, _ in later][-1] == "finished"
    queued = [json.loads(data)["node"] == "queue" for kind, data, _ in [*events, *later]
              if kind == "step"]
    assert queued.count(True) == 1  # one of the two waited for the single place

    with requests.get(live_page.url + run["events"], headers={"Last-Event-ID": "2"},
                      stream=True, timeout=60) as again:
        resumed = _read_events(again)
    assert [data for kind, data, _ in resumed if kind == "step"] == \
        [data for kind, data, _ in events if kind == "step"][3:]

    exported = requests.get(f"{live_page.url}{run['page']}/files/review.json", timeout=30)
    assert exported.headers["content-disposition"] == 'attachment; filename="review.json"'
    assert len(exported.json()["findings"]) > 0
    page = requests.get(live_page.url + run["page"], timeout=30)
    assert page.status_code == 200 and 'class="review"' in page.text


@pytest.mark.slow
def test_a_review_that_fails_says_why_at_the_end_of_its_stream(live_page: LivePage) -> None:
    live_page.out_root.write_text("a file where the reviews' folder should be", encoding="utf-8")
    live_page.gate.set()
    run = requests.post(f"{live_page.url}/reviews", json={"question": QUESTION,
                                                           "sources": ["openalex"]},
                        timeout=30).json()
    with requests.get(live_page.url + run["events"], stream=True, timeout=120) as stream:
        events = _read_events(stream)
    kind, data, _ = events[-1]
    assert kind == "failed"
    assert "cannot write to" in json.loads(data)["error"]
    fragment = requests.get(live_page.url + run["review"], timeout=30)
    assert "The review failed: cannot write to" in fragment.text
    again = requests.post(f"{live_page.url}/reviews", json={"question": QUESTION,
                                                             "sources": ["openalex"]}, timeout=30)
    assert again.status_code == 202  # a failed review does not block the next one
    with requests.get(live_page.url + again.json()["events"], stream=True, timeout=120) as stream:
        assert _read_events(stream)[-1][0] == "failed"


@pytest.mark.parametrize(("body", "says"), [
    ({"question": ""}, "question is empty"),
    ({"question": "   \n  "}, "question is empty"),
    ({"question": "?!"}, "no words to search for"),
    ({"question": QUESTION, "sources": ["pubmed", "scopus"]}, "unknown source 'scopus'"),
    ({"question": QUESTION, "sources": []}, "no source given"),
    ({"question": QUESTION, "sources": "pubmed"}, "sources must be a list"),
    ({"question": QUESTION, "since": "last year"}, "since must be a year"),
    ({"question": QUESTION, "since": 2020, "until": "2010"}, "after --until 2010"),
    ({"question": QUESTION, "model_name": "x"}, "unknown field 'model_name'"),
    ({"question": QUESTION, "criteria": "/etc/hostname"}, "not a file name"),
    ({"question": QUESTION, "criteria": ["RCTs"]}, "criteria must be text"),
    (["not", "an", "object"], "must be a JSON object"),
])
def test_bad_input_is_answered_with_a_sentence(live_page: LivePage, body: object,
                                               says: str) -> None:
    answer = requests.post(f"{live_page.url}/reviews", json=body, timeout=30)
    assert answer.status_code == 400
    assert says in answer.json()["error"]
    assert not live_page.out_root.exists()


def test_requests_the_page_does_not_send_are_refused(live_page: LivePage) -> None:
    form = requests.post(f"{live_page.url}/reviews", data={"question": QUESTION}, timeout=30)
    assert form.status_code == 400 and "as JSON" in form.json()["error"]
    broken = requests.post(f"{live_page.url}/reviews", data=b"{not json",
                           headers={"Content-Type": "application/json"}, timeout=30)
    assert broken.status_code == 400 and "not valid JSON" in broken.json()["error"]
    rebinding = requests.get(live_page.url, headers={"Host": "attacker.example"}, timeout=30)
    assert rebinding.status_code == 400
    missing = requests.get(f"{live_page.url}/reviews/run-nope/review", timeout=30)
    assert missing.status_code == 404 and "no review of that id" in missing.text


def test_the_page_loads_only_its_own_files(live_page: LivePage) -> None:
    index = requests.get(live_page.url, timeout=30)
    assert index.status_code == 200
    assert "default-src 'self'" in index.headers["content-security-policy"]
    assert 'value="pubmed"' in index.text and "<script src=\"/static/app.js\"" in index.text
    for asset in ("/static/app.js", "/static/style.css"):
        assert requests.get(live_page.url + asset, timeout=30).status_code == 200
    assert "http" not in requests.get(live_page.url + "/static/style.css", timeout=30).text


class _Elements(HTMLParser):
    """Tags, attributes and text of a page, to check what a browser would see."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_text_from_papers_is_shown_as_text_and_links_are_only_web_links() -> None:
    hostile = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    # A title's markup is stripped and its entities decoded: an escaped tag becomes a real one.
    work = Work(title=f"Title {html.escape(hostile)}", authors=["Doe, <b>J</b>"], year=2020,
                venue="<i>Venue</i>", url="javascript:alert(1)", kind="web")
    assert work.title == f"Title {hostile}"
    passage = Passage(id=f"{work.id}#abstract:0-40", work_id=work.id, text=f"Before {hostile}",
                      start=0, end=40)
    finding = Finding(text=f"Claim {hostile}", passage_ids=[passage.id], sub_question_id="q1",
                      citations=[1], quotes=[Quote(passage_id=passage.id, start=7,
                                                   end=len(passage.text), text=hostile)])
    report = Report(question=f"Q {hostile}?", sub_questions=[
        SubQuestion(id="q1", text=f"Sub {hostile}", answer_shape="any")],
        summary=hostile, papers=[work], findings=[finding], passages=[passage],
        references=[Reference(number=1, work_id=work.id, passage_ids=[passage.id])],
        gaps=[hostile], notes=[hostile])
    review = WebReview(id="run-test", question=report.question, out_dir=Path("unused"),
                       events=EventLog(), status="finished", report=report)

    parsed = _Elements()
    parsed.feed(render.page("review.html", review=review))
    tags = [tag for tag, _ in parsed.tags]
    assert "script" not in tags and "img" not in tags and "b" not in tags
    assert all(not (attrs.get("href") or "").lower().startswith("javascript")
               for _, attrs in parsed.tags)
    text = "".join(parsed.text)
    assert f"Claim {hostile}" in text and f"Title {hostile}" in text
    assert hostile in [data for data in parsed.text]  # the marked quote, as text


def test_scholargraph_serve_starts_the_page_on_loopback(tmp_path: Path) -> None:
    sock = _free_socket()
    port = sock.getsockname()[1]
    sock.close()
    env = {**os.environ, "SCHOLARGRAPH_HOME": str(tmp_path / "home")}
    process = subprocess.Popen([sys.executable, "-m", "scholargraph.cli", "serve", "--port",
                                str(port), "--offline"], env=env, stderr=subprocess.PIPE,
                               text=True)
    try:
        announced = process.stderr.readline()
        assert f"http://127.0.0.1:{port}/" in announced
        page = None
        deadline = time.monotonic() + 60
        while page is None and process.poll() is None and time.monotonic() < deadline:
            try:
                page = requests.get(f"http://127.0.0.1:{port}/", timeout=5)
            except requests.ConnectionError:
                time.sleep(0.1)
        assert page is not None and page.status_code == 200
        assert "this server is offline" in page.text
    finally:
        process.terminate()
        process.wait(timeout=30)
