// The live review page: send the question, follow the run's steps as Server-Sent Events,
// count records per source, then load the finished review (HTML the server escaped).
// Text from the run is only ever set with textContent, never parsed as HTML.
"use strict";

const sourceNames = new Set(document.getElementById("app-script").dataset.sources.split(","));
const form = document.getElementById("review-form");
const message = document.getElementById("message");
const progress = document.getElementById("progress");
const statusLine = document.getElementById("status");
const steps = document.getElementById("steps");
const countsBody = document.querySelector("#source-counts tbody");
const reviewSection = document.getElementById("review");
const submitButton = document.getElementById("submit");

function showMessage(text) {
  message.textContent = text;
  message.hidden = !text;
}

function formRequest() {
  const ticked = [...form.querySelectorAll("input[name=sources]:checked")].map((box) => box.value);
  const offline = document.getElementById("offline");
  return {
    question: document.getElementById("question").value,
    sources: ticked.length ? ticked : null,
    since: document.getElementById("since").value,
    until: document.getElementById("until").value,
    criteria: document.getElementById("criteria").value,
    offline: offline.checked,
    approve_plan: document.getElementById("approve-plan").checked,
  };
}

function addStep(event) {
  const item = document.createElement("li");
  item.className = event.summary ? "step" : "step quiet";
  const time = document.createElement("span");
  time.className = "elapsed";
  time.textContent = `${event.elapsed_s.toFixed(1)}s`;
  const text = document.createElement("span");
  text.textContent = ` round ${event.round} · ${event.summary || event.node}`;
  item.append(time, text);
  steps.append(item);
}

function countRow(source) {
  let row = countsBody.querySelector(`tr[data-source="${CSS.escape(source)}"]`);
  if (!row) {
    row = document.createElement("tr");
    row.dataset.source = source;
    for (const value of [source, 0, 0, 0]) {
      const cell = document.createElement("td");
      cell.textContent = value;
      row.append(cell);
    }
    countsBody.append(row);
  }
  return row;
}

function addCounts(event) {
  if (!sourceNames.has(event.node) || !event.searches) return;
  const cells = countRow(event.node).cells;
  for (const search of event.searches) {
    cells[1].textContent = Number(cells[1].textContent) + 1;
    cells[2].textContent = Number(cells[2].textContent) + search.n_results;
    if (search.status === "error") cells[3].textContent = Number(cells[3].textContent) + 1;
  }
}

function setStatus(text, kind) {
  statusLine.textContent = text;
  statusLine.dataset.state = kind;
}

async function showReview(url) {
  const response = await fetch(url);
  reviewSection.innerHTML = await response.text();
}

// The plan of a review started with "approve the plan": shown for editing, then the decision
// is posted; the run goes on (or ends, if rejected) and its steps keep arriving.
const approval = document.getElementById("approval");
const planQuestions = document.getElementById("plan-questions");
const planSources = document.getElementById("plan-sources");
const planMessage = document.getElementById("plan-message");

function showApproval(run, plan) {
  planQuestions.value = plan.sub_questions.join("\n");
  planSources.querySelectorAll("label").forEach((label) => label.remove());
  for (const name of plan.available_sources) {
    const label = document.createElement("label");
    label.className = "inline";
    const box = document.createElement("input");
    box.type = "checkbox";
    box.value = name;
    box.checked = plan.sources.includes(name);
    label.append(box, ` ${name}`);
    planSources.append(label);
  }
  planMessage.hidden = true;
  approval.hidden = false;
  approval.dataset.decisionUrl = `${run.page}/decision`;
  approval.dataset.questions = planQuestions.value;
  approval.dataset.sources = plan.sources.join(",");
  setStatus("waiting for your decision", "waiting");
}

function planDecision() {
  const questions = planQuestions.value.split("\n").map((line) => line.trim()).filter(Boolean);
  const sources = [...planSources.querySelectorAll("input:checked")].map((box) => box.value);
  const edited = questions.join("\n") !== approval.dataset.questions
    || sources.join(",") !== approval.dataset.sources;
  return edited ? { action: "edit", sub_questions: questions, sources } : { action: "accept" };
}

async function decide(decision) {
  const response = await fetch(approval.dataset.decisionUrl, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(decision),
  });
  if (!response.ok) {
    planMessage.textContent = (await response.json()).error;
    planMessage.hidden = false;
    return;
  }
  approval.hidden = true;
  setStatus("running", "running");
}

document.getElementById("plan-accept").addEventListener("click", () => decide(planDecision()));
document.getElementById("plan-reject").addEventListener("click", () => decide({ action: "reject" }));

function follow(run) {
  const source = new EventSource(run.events);
  source.addEventListener("step", (message) => {
    const event = JSON.parse(message.data);
    addStep(event);
    addCounts(event);
    if (event.approval) showApproval(run, event.approval);
  });
  source.addEventListener("finished", async () => {
    source.close();
    await showReview(run.review);
    setStatus("finished", "finished");
    submitButton.disabled = false;
  });
  source.addEventListener("failed", (message) => {
    source.close();
    setStatus("failed", "failed");
    showMessage(`The review failed: ${JSON.parse(message.data).error}`);
    submitButton.disabled = false;
  });
}

form.addEventListener("submit", async (submitEvent) => {
  submitEvent.preventDefault();
  showMessage("");
  submitButton.disabled = true;
  const response = await fetch("/reviews", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(formRequest()),
  });
  const answer = await response.json();
  if (!response.ok) {
    showMessage(answer.error);
    submitButton.disabled = false;
    return;
  }
  steps.replaceChildren();
  countsBody.replaceChildren();
  reviewSection.replaceChildren();
  progress.hidden = false;
  setStatus("running", "running");
  follow(answer);
});
