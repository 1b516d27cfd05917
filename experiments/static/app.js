// The page: forms, the table (SVG drawn by the server) and the legal moves as buttons. No game logic here.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { game: null, seat: null, timer: null, replay: null, steps: 0 };

async function api(method, url, body) {
  const response = await fetch(url, {
    method,
    headers: body ? { "Content-Type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function showError(err) {
  const box = $("error");
  box.textContent = err ? String(err.message || err) : "";
  box.hidden = !err;
}

async function guarded(task) {
  try {
    showError(null);
    await task();
  } catch (err) {
    showError(err);
  }
}

function option(select, value, text) {
  const item = document.createElement("option");
  item.value = value;
  item.textContent = text ?? value;
  select.appendChild(item);
}

function seatInputs() {
  const n = Number($("players").value);
  const box = $("seats");
  const old = [...box.querySelectorAll("input")].map((x) => x.value);
  box.querySelectorAll("label").forEach((x) => x.remove());
  for (let p = 0; p < n; p++) {
    const label = document.createElement("label");
    label.textContent = `player_${p}`;
    const input = document.createElement("input");
    input.setAttribute("list", "agent-list");
    input.id = `seat-${p}`;
    input.value = old[p] ?? (p === 0 ? "human" : "strategic");
    label.appendChild(input);
    box.appendChild(label);
  }
}

async function loadOptions() {
  const options = await api("GET", "/api/options");
  for (let n = 2; n <= 8; n++) option($("players"), n);
  options.presets.forEach((name) => option($("preset"), name));
  ["human", ...options.agents, ...options.checkpoints].forEach((name) => option($("agent-list"), name));
  options.checkpoints.forEach((name) => option($("record-checkpoint"), name));
  options.records.forEach((name) => option($("record-file"), name));
  seatInputs();
  if (options.records.length) await loadRecordGames();
}

// ------------------------------------------------------------------ a game
function actionGroups(legal) {
  const names = { draw: "draw", take: "take", stop: "draw", meld: "meld", layoff: "lay off",
                  discard: "discard", rummy: "Rummy!", pass: "Rummy!" };
  const groups = new Map();
  for (const action of legal) {
    const key = names[action.split(" ")[0]] ?? action.split(" ")[0];
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(action);
  }
  return groups;
}

function showGame(data) {
  $("board").hidden = false;
  $("table").innerHTML = data.svg;
  const actions = $("actions");
  actions.innerHTML = "";
  for (const [name, legal] of actionGroups(data.legal)) {
    const group = document.createElement("div");
    group.className = "group";
    const label = document.createElement("span");
    label.textContent = name;
    group.appendChild(label);
    for (const action of legal) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "action" + (action.startsWith("rummy") ? " rummy" : "");
      button.dataset.action = action;
      button.textContent = action.startsWith("rummy") ? `Rummy! ${action.slice(6)}` : action;
      button.addEventListener("click", () => guarded(() => play(action)));
      group.appendChild(button);
    }
    actions.appendChild(group);
  }
  const log = $("log");
  log.innerHTML = "";
  data.log.forEach((line) => { const item = document.createElement("li"); item.textContent = line; log.appendChild(item); });
  log.scrollTop = log.scrollHeight;
  let status = "";
  if (data.message) status = data.message;
  else if (data.over) status = `Game over after ${data.moves} moves` + (data.seed !== null ? ` (seed ${data.seed})` : "");
  else if (data.legal.length) status = "Your move: click one of the moves below.";
  else status = `player_${data.to_act} to move`;
  $("status").textContent = status;
  $("status").dataset.over = data.over ? "yes" : "no";
  const watching = data.humans.length === 0;
  $("watch").hidden = !watching;
  $("watch-step").disabled = data.over;
  $("watch-play").disabled = data.over || state.timer !== null;
  if (data.over) stopWatching();
}

async function startGame(event) {
  event.preventDefault();
  stopWatching();
  const n = Number($("players").value);
  const seats = [...Array(n).keys()].map((p) => $(`seat-${p}`).value.trim() || "strategic");
  let rules = {};
  if ($("rules").value.trim()) {
    try { rules = JSON.parse($("rules").value); } catch (err) { throw new Error(`rule changes: ${err.message}`); }
  }
  const body = { players: n, preset: $("preset").value || null, seats, rules,
                 seed: $("seed").value === "" ? null : Number($("seed").value) };
  const data = await api("POST", "/api/games", body);
  state.game = data.id;
  state.seat = data.seat;
  showGame(data);
}

async function play(action) {
  showGame(await api("POST", `/api/games/${state.game}/act`, { seat: state.seat, action }));
}

async function watchStep() {
  showGame(await api("POST", `/api/games/${state.game}/step`, { steps: 1 }));
}

function stopWatching() {
  if (state.timer !== null) clearInterval(state.timer);
  state.timer = null;
  $("watch-pause").disabled = true;
}

function startWatching() {
  stopWatching();
  $("watch-play").disabled = true;
  $("watch-pause").disabled = false;
  let busy = false;
  state.timer = setInterval(async () => {
    if (busy) return;
    busy = true;
    await guarded(watchStep).finally(() => { busy = false; });
  }, Number($("watch-speed").value));
}

// ------------------------------------------------------------------ a record
async function loadRecordGames() {
  const file = $("record-file").value;
  const select = $("record-game");
  select.innerHTML = "";
  if (!file) return;
  const games = await api("GET", `/api/records?file=${encodeURIComponent(file)}`);
  games.forEach((g) => option(select, g.index, `game ${g.id}: ${g.players.join(" vs ")} (${g.moves} moves)`));
}

function showFrame(frame) {
  $("replay-board").hidden = false;
  $("replay-table").innerHTML = frame.svg;
  state.steps = frame.steps;
  $("replay-slider").max = frame.steps;
  $("replay-slider").value = frame.step;
  $("replay-step").textContent = `step ${frame.step} of ${frame.steps}`;
  $("replay-step").dataset.step = frame.step;
  $("replay-move").textContent = frame.move
    ? `next: player_${frame.move.seat} plays ${frame.move.action}` : "end of the game";
  const table = $("replay-probs");
  const body = table.querySelector("tbody");
  body.innerHTML = "";
  table.hidden = !(frame.move && frame.move.probs);
  if (frame.move && frame.move.probs) {
    for (const [action, p] of frame.move.probs) {
      const row = document.createElement("tr");
      if (action === frame.move.action) row.className = "chosen";
      row.innerHTML = `<td></td><td>${(100 * p).toFixed(1)}%</td>`;
      row.firstChild.textContent = action;
      body.appendChild(row);
    }
  }
}

async function openReplay(event) {
  event.preventDefault();
  const body = { file: $("record-file").value, game: Number($("record-game").value || 0),
                 checkpoint: $("record-checkpoint").value || null };
  const frame = await api("POST", "/api/replays", body);
  state.replay = frame.id;
  $("replay-probs-caption").textContent = `${body.checkpoint}: its probability of each legal move (top 8)`;
  showFrame(frame);
}

async function goTo(step) {
  if (state.replay === null) return;
  const target = Math.max(0, Math.min(state.steps, step));
  showFrame(await api("GET", `/api/replays/${state.replay}/${target}`));
}

const current = () => Number($("replay-slider").value);

function switchTab(name) {
  document.querySelectorAll(".tab").forEach((t) => t.classList.toggle("active", t.dataset.tab === name));
  $("game").hidden = name !== "game";
  $("replay").hidden = name !== "replay";
}

window.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll(".tab").forEach((t) => t.addEventListener("click", () => switchTab(t.dataset.tab)));
  $("players").addEventListener("change", seatInputs);
  $("setup").addEventListener("submit", (e) => guarded(() => startGame(e)));
  $("watch-step").addEventListener("click", () => guarded(watchStep));
  $("watch-play").addEventListener("click", startWatching);
  $("watch-pause").addEventListener("click", () => { stopWatching(); $("watch-play").disabled = false; });
  $("record-file").addEventListener("change", () => guarded(loadRecordGames));
  $("replay-setup").addEventListener("submit", (e) => guarded(() => openReplay(e)));
  $("replay-first").addEventListener("click", () => guarded(() => goTo(0)));
  $("replay-prev").addEventListener("click", () => guarded(() => goTo(current() - 1)));
  $("replay-next").addEventListener("click", () => guarded(() => goTo(current() + 1)));
  $("replay-last").addEventListener("click", () => guarded(() => goTo(state.steps)));
  $("replay-slider").addEventListener("change", () => guarded(() => goTo(current())));
  document.addEventListener("keydown", (e) => {
    if ($("replay").hidden || e.target.tagName === "INPUT" && e.target.type !== "range") return;
    if (e.key === "ArrowRight") guarded(() => goTo(current() + 1));
    if (e.key === "ArrowLeft") guarded(() => goTo(current() - 1));
  });
  guarded(loadOptions);
});
