// The page: a table drawn by the server (SVG), your hand and the pile as cards to select, and the legal moves the
// server sent that the selection makes, in words. The server is the only judge: no game logic runs here.
"use strict";

const $ = (id) => document.getElementById(id);
const SUITS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
const stored = (key, ms) => Number(localStorage.getItem(key) || ms);
const FRAME_MS = stored("rummy.frame_ms", 650); // how long each of the others' moves stays on the table
const POLL_MS = stored("rummy.poll_ms", 1500); // how often a page waiting for other people asks what happened
const state = {
  game: null, token: null, data: null, seen: 0, hands: 0, busy: false, timer: null, poll: null,
  selected: new Set(), depth: null, skip: false, replay: null, steps: 0, links: null,
};

// ------------------------------------------------------------------ plumbing
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

function showError(err, box = "error") {
  const element = $(box);
  element.textContent = err ? String(err.message || err) : "";
  element.hidden = !err;
}

function setBusy(busy) {
  state.busy = busy;
  document.body.classList.toggle("busy", busy);
  // the buttons of a move being shown (skip, next hand) stay live: they answer the person, not the server
  document.querySelectorAll("#board button:not(.live), #setup button").forEach((b) => {
    if (busy) { b.dataset.wasDisabled = b.disabled ? "yes" : "no"; b.disabled = true; }
    else if (b.dataset.wasDisabled) { b.disabled = b.dataset.wasDisabled === "yes"; delete b.dataset.wasDisabled; }
  });
}

async function guarded(task, box = "error") {
  if (state.busy) return; // one request at a time: no double submit
  setBusy(true);
  try {
    showError(null, box);
    await task();
  } catch (err) {
    showError(err, box);
  } finally {
    setBusy(false);
  }
}

function option(select, value, text) {
  const item = document.createElement("option");
  item.value = value;
  item.textContent = text ?? value;
  select.appendChild(item);
}

function cardText(card) {
  if (card === "JK" || card === "DJ") return card === "JK" ? "Joker" : "Dealer's joker";
  const rank = card[0] === "T" ? "10" : card[0];
  return rank + SUITS[card[1]];
}

function cardButton(card, selected, onClick) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "card" + ("DH".includes(card[1]) && card.length === 2 && card !== "JK" ? " red" : "")
    + (card === "JK" || card === "DJ" ? " joker" : "") + (selected ? " selected" : "");
  button.dataset.card = card;
  button.setAttribute("aria-pressed", selected ? "true" : "false");
  button.textContent = cardText(card);
  button.addEventListener("click", onClick);
  return button;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ------------------------------------------------------------------ the setup form
function seatInputs() {
  const n = Number($("players").value);
  const box = $("seats");
  const old = [...box.querySelectorAll("input.agent")].map((x) => x.value);
  const names = [...box.querySelectorAll("input.person")].map((x) => x.value);
  box.querySelectorAll("div.seat").forEach((x) => x.remove());
  for (let p = 0; p < n; p++) {
    const seat = document.createElement("div");
    seat.className = "seat";
    const label = document.createElement("label");
    label.textContent = `player_${p}`;
    const input = document.createElement("input");
    input.setAttribute("list", "agent-list");
    input.id = `seat-${p}`;
    input.className = "agent";
    input.value = old[p] ?? (p === 0 ? "human" : "strategic");
    label.appendChild(input);
    const nameLabel = document.createElement("label");
    nameLabel.textContent = "name";
    const name = document.createElement("input");
    name.id = `name-${p}`;
    name.className = "person";
    name.maxLength = 24;
    name.placeholder = "a person's name";
    name.value = names[p] ?? "";
    nameLabel.appendChild(name);
    const sync = () => { nameLabel.hidden = input.value.trim() !== "human"; };
    input.addEventListener("input", sync);
    sync();
    seat.append(label, nameLabel);
    box.appendChild(seat);
  }
}

async function loadOptions() {
  const options = await api("GET", "/api/options");
  for (let n = 2; n <= 8; n++) option($("players"), n);
  options.presets.forEach((name) => option($("preset"), name));
  ["human", ...options.agents, ...options.checkpoints].forEach((name) => option($("agent-list"), name));
  options.checkpoints.forEach((name) => option($("record-checkpoint"), name));
  $("record-file").innerHTML = "";
  options.records.forEach((name) => option($("record-file"), name));
  seatInputs();
  if (options.records.length) await loadRecordGames();
}

async function startGame(event) {
  event.preventDefault();
  stopWatching();
  const n = Number($("players").value);
  const seats = [...Array(n).keys()].map((p) => $(`seat-${p}`).value.trim() || "strategic");
  const names = [...Array(n).keys()].map((p) => $(`name-${p}`).value.trim());
  let rules = {};
  if ($("rules").value.trim()) {
    try { rules = JSON.parse($("rules").value); } catch (err) { throw new Error(`rule changes: ${err.message}`); }
  }
  const body = { players: n, preset: $("preset").value || null, seats, names, rules,
                 seed: $("seed").value === "" ? null : Number($("seed").value) };
  $("status").textContent = "Dealing...";
  const data = await api("POST", "/api/games", body);
  sessionStorage.setItem(`links-${data.id}`, JSON.stringify(data.links));
  enterGame(data.id, data.token);
  history.pushState(null, "", gameHash(data.id, data.token));
  await show(data);
}

const gameHash = (id, token) => `#game=${encodeURIComponent(id)}` + (token ? `&token=${encodeURIComponent(token)}` : "");

function enterGame(id, token) {
  stopWatching();
  stopPolling();
  Object.assign(state, { game: id, token, data: null, seen: 0, hands: 0, selected: new Set(), depth: null });
  const links = sessionStorage.getItem(`links-${id}`);
  state.links = links ? JSON.parse(links) : null;
  $("setup-box").open = false;
  $("board").hidden = false;
  switchTab("game");
}

// ------------------------------------------------------------------ the table
async function show(data) {
  // Show the others' moves one at a time (and the end of each hand), then the position now.
  const frames = data.frames || [];
  state.skip = false;
  $("play").hidden = true;
  for (const frame of frames) {
    await summaries(data, frame.n - 1);
    if (state.skip) break;
    $("replaying").hidden = false;
    $("frame-text").textContent = frame.text;
    $("table").innerHTML = frame.svg;
    $("table").dataset.move = frame.n;
    await sleep(FRAME_MS);
  }
  $("replaying").hidden = true;
  await summaries(data, data.moves);
  render(data);
}

function summaries(data, upTo) {
  // The summary of each hand that ended at or before move ``upTo`` and was not shown yet; waits for "Next hand".
  const hand = data.hands.find((h, i) => i >= state.hands && h.after <= upTo);
  if (!hand) return Promise.resolve();
  state.hands = data.hands.indexOf(hand) + 1;
  showSummary(hand, data);
  if (data.over && state.hands === data.hands.length) return Promise.resolve();
  $("summary-next").disabled = false;
  return new Promise((resolve) => {
    $("summary-next").onclick = () => { $("summary").hidden = true; resolve(summaries(data, upTo)); };
  });
}

function showSummary(hand, data) {
  const out = hand.went_out === null ? "nobody went out" : `${hand.seats[hand.went_out].name} went out`;
  $("summary-title").textContent = `Hand ${hand.hand + 1} is over: ${out}`;
  const body = $("summary-table").querySelector("tbody");
  body.innerHTML = "";
  for (const seat of hand.seats) {
    const row = document.createElement("tr");
    const cells = [`${seat.name} (player_${seat.seat})`, seat.melded ?? "", seat.cards_left ?? "",
                   seat.hand_score, seat.total];
    cells.forEach((value) => { const td = document.createElement("td"); td.textContent = value; row.appendChild(td); });
    if (seat.seat === hand.went_out) row.className = "out";
    body.appendChild(row);
  }
  $("summary-next").hidden = data.over && data.hands.indexOf(hand) === data.hands.length - 1;
  $("summary").hidden = false;
}

function render(data) {
  state.data = data;
  state.seen = data.moves;
  $("table").innerHTML = data.svg;
  $("table").dataset.move = data.moves;
  renderLinks(data);
  renderLog(data.log);
  const mine = data.choices.length > 0;
  $("play").hidden = data.seat === null || data.over;
  if (data.seat !== null) renderHand(data);
  let status = "";
  if (data.message) status = data.message;
  else if (data.over) status = `Game over after ${data.moves} moves` + winner(data) + (data.seed !== null ? ` (seed ${data.seed})` : "");
  else if (mine) status = "Your move: select cards in your hand (or a pile card to take down to), then a move.";
  else if (data.thinking) status = `${data.thinking} is thinking...`;
  else status = `${data.names[data.to_act]} (player_${data.to_act}) to move`;
  $("status").textContent = status;
  $("status").dataset.over = data.over ? "yes" : "no";
  $("status").dataset.mine = mine ? "yes" : "no";
  $("record-link").hidden = !data.record;
  if (data.record) $("record-open").href = `#replay=${encodeURIComponent(data.record)}&index=0`;
  const watching = data.humans.length === 0;
  $("watch").hidden = !watching;
  $("watch-step").disabled = data.over;
  $("watch-play").disabled = data.over || state.timer !== null;
  if (data.over) stopWatching();
  if (!watching && !data.over && !mine) startPolling();
  else stopPolling();
}

function winner(data) {
  const w = data.view.winner;
  return w === null || w === undefined ? "" : `: ${data.names[w]} (player_${w}) wins`;
}

function renderLinks(data) {
  const links = state.links;
  $("links").hidden = !links || links.length < 2 && data.humans.length < 2;
  if ($("links").hidden) return;
  const list = $("link-list");
  list.innerHTML = "";
  const base = location.href.split("#")[0];
  const rows = links.map((l) => [`${l.name} (player_${l.seat})` + (l.token === state.token ? ": you" : ""),
                                 base + gameHash(state.game, l.token)]);
  rows.push(["spectators", base + gameHash(state.game, null)]);
  for (const [who, url] of rows) {
    const item = document.createElement("li");
    const label = document.createElement("span");
    label.textContent = who;
    const field = document.createElement("input");
    field.readOnly = true;
    field.value = url;
    field.className = "link";
    field.addEventListener("focus", () => field.select());
    item.append(label, field);
    list.appendChild(item);
  }
}

function renderLog(log) {
  const box = $("log");
  const open = new Set([...box.querySelectorAll("details[open]")].map((d) => d.dataset.hand));
  box.innerHTML = "";
  const byHand = new Map();
  log.forEach((line) => { if (!byHand.has(line.hand)) byHand.set(line.hand, []); byHand.get(line.hand).push(line); });
  const hands = [...byHand.keys()];
  for (const hand of hands) {
    const details = document.createElement("details");
    details.dataset.hand = hand;
    details.open = hand === hands[hands.length - 1] || open.has(String(hand));
    const summary = document.createElement("summary");
    summary.textContent = `Hand ${hand + 1} (${byHand.get(hand).length} moves)`;
    const list = document.createElement("ol");
    list.start = byHand.get(hand)[0].n;
    for (const line of byHand.get(hand)) {
      const item = document.createElement("li");
      item.value = line.n;
      item.textContent = line.text;
      list.appendChild(item);
    }
    details.append(summary, list);
    box.appendChild(details);
  }
  box.scrollTop = box.scrollHeight;
}

// ------------------------------------------------------------------ choosing a move by its cards
function renderHand(data) {
  const me = data.view.seats[data.seat];
  const cards = me.cards || [];
  const pile = data.view.discard;
  const hand = $("hand");
  hand.innerHTML = "";
  const keys = cards.map((c, i) => `${c}#${i}`);
  state.selected = new Set([...state.selected].filter((k) => keys.includes(k)));
  cards.forEach((card, i) => {
    const key = `${card}#${i}`;
    hand.appendChild(cardButton(card, state.selected.has(key), () => toggleCard(key)));
  });
  const pileBox = $("pile");
  pileBox.innerHTML = "";
  if (state.depth !== null && state.depth >= pile.length) state.depth = null;
  pile.forEach((card, i) => {
    const depth = pile.length - 1 - i;
    const chosen = state.depth !== null && depth <= state.depth;
    const button = cardButton(card, chosen, () => toggleDepth(depth));
    button.dataset.depth = depth;
    button.title = depth === 0 ? "the top card" : `${depth} card${depth > 1 ? "s" : ""} above it`;
    pileBox.appendChild(button);
  });
  if (!pile.length) pileBox.textContent = "empty";
  renderChoices(data);
}

function toggleCard(key) {
  if (state.busy) return;
  if (state.selected.has(key)) state.selected.delete(key); else state.selected.add(key);
  renderHand(state.data);
}

function toggleDepth(depth) {
  if (state.busy) return;
  state.depth = state.depth === depth ? null : depth;
  renderHand(state.data);
}

function covers(uses, picked) {
  const left = [...uses];
  for (const card of picked) {
    const at = left.indexOf(card);
    if (at < 0) return false;
    left.splice(at, 1);
  }
  return true;
}

function offered(choices) {
  // The legal moves the selection makes: a pile card picks the moves that take down to it, hand cards the moves
  // that use every one of them; nothing selected: the moves that use no card of the hand (draw, take the top...).
  const picked = [...state.selected].map((k) => k.split("#")[0]);
  return choices.filter((c) => {
    if (state.depth !== null) return c.depth === state.depth && covers(c.hand, picked);
    if (picked.length) return covers(c.hand, picked);
    return c.hand.length === 0 && (c.depth === null || c.depth === 0);
  }).sort((a, b) => (a.hand.length === picked.length ? 0 : 1) - (b.hand.length === picked.length ? 0 : 1));
}

function renderChoices(data) {
  const choices = data.choices;
  const box = $("choices");
  box.innerHTML = "";
  const shown = offered(choices);
  for (const choice of shown) box.appendChild(moveButton(choice));
  const picked = state.selected.size + (state.depth !== null ? 1 : 0);
  let hint = "";
  if (!choices.length) hint = "";
  else if (!shown.length && picked) hint = "No legal move uses all of those cards: select fewer, or others.";
  else if (!picked && choices.some((c) => c.hand.length)) hint = "Select cards in your hand to see the melds, lay-offs and discards they make.";
  else if (!picked && choices.some((c) => c.depth)) hint = "Select a deeper pile card to take down to it.";
  $("hint").textContent = hint;
  const all = $("actions");
  all.innerHTML = "";
  choices.forEach((choice) => all.appendChild(moveButton(choice, true)));
  $("all-moves-title").textContent = `Every legal move (${choices.length})`;
  $("all-moves").hidden = !choices.length;
}

function moveButton(choice, plain = false) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = (plain ? "action" : "choice") + (choice.kind === "rummy" ? " rummy" : "");
  button.dataset.action = choice.action;
  button.textContent = choice.words;
  button.addEventListener("click", () => guarded(() => play(choice.action)));
  return button;
}

async function play(action) {
  const next = state.data && state.data.names[(state.data.to_act + 1) % state.data.names.length];
  if (next && state.data.humans.length < state.data.names.length) $("status").textContent = "Agents are thinking...";
  const data = await api("POST", `/api/games/${state.game}/act`, { token: state.token, action });
  state.selected = new Set();
  state.depth = null;
  await show(data);
}

async function refresh() {
  const query = (state.token ? `token=${encodeURIComponent(state.token)}&` : "") + `since=${state.seen}`;
  await show(await api("GET", `/api/games/${state.game}?${query}`));
}

function startPolling() {
  if (state.poll !== null) return;
  state.poll = setInterval(() => { if (!state.busy && $("summary").hidden) guarded(refresh); }, POLL_MS);
}

function stopPolling() {
  if (state.poll !== null) clearInterval(state.poll);
  state.poll = null;
}

// ------------------------------------------------------------------ watching agents
async function watchStep() {
  render(await api("POST", `/api/games/${state.game}/step`, { steps: 1 }));
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
  let running = false;
  state.timer = setInterval(async () => {
    if (running) return;
    running = true;
    try { render(await api("POST", `/api/games/${state.game}/step`, { steps: 1 })); }
    catch (err) { showError(err); stopWatching(); }
    finally { running = false; }
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
  if (event) event.preventDefault();
  const body = { file: $("record-file").value, game: Number($("record-game").value || 0),
                 checkpoint: $("record-checkpoint").value || null };
  const frame = await api("POST", "/api/replays", body);
  state.replay = frame.id;
  $("replay-probs-caption").textContent = `${body.checkpoint}: its probability of each legal move (top 8)`;
  history.replaceState(null, "", `#replay=${encodeURIComponent(body.file)}&index=${body.game}`);
  showFrame(frame);
}

async function openRecord(file, game) {
  switchTab("replay");
  if (![...$("record-file").options].some((o) => o.value === file)) option($("record-file"), file);
  $("record-file").value = file;
  await loadRecordGames();
  $("record-game").value = game;
  await openReplay(null);
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

// ------------------------------------------------------------------ the address: #game=ID&token=T, #replay=FILE&index=N
async function route() {
  const params = new URLSearchParams(location.hash.slice(1));
  if (params.get("game") && !params.get("replay")) {
    enterGame(params.get("game"), params.get("token"));
    state.seen = 0;
    const query = (state.token ? `token=${encodeURIComponent(state.token)}&` : "");
    render(await api("GET", `/api/games/${state.game}?${query}`));
    state.hands = state.data.hands.length;
  } else if (params.get("replay")) {
    await openRecord(params.get("replay"), Number(params.get("index") || 0));
  } else {
    stopPolling();
    stopWatching();
    state.game = null;
    $("board").hidden = true;
    $("setup-box").open = true;
    switchTab("game");
  }
}

window.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll(".tab").forEach((t) => t.addEventListener("click", () => switchTab(t.dataset.tab)));
  $("players").addEventListener("change", seatInputs);
  $("setup").addEventListener("submit", (e) => guarded(() => startGame(e), "form-error"));
  $("watch-step").addEventListener("click", () => guarded(watchStep));
  $("watch-play").addEventListener("click", startWatching);
  $("watch-pause").addEventListener("click", () => { stopWatching(); $("watch-play").disabled = false; });
  $("skip").addEventListener("click", () => { state.skip = true; });
  $("record-file").addEventListener("change", () => guarded(loadRecordGames, "replay-error"));
  $("replay-setup").addEventListener("submit", (e) => guarded(() => openReplay(e), "replay-error"));
  $("replay-first").addEventListener("click", () => guarded(() => goTo(0), "replay-error"));
  $("replay-prev").addEventListener("click", () => guarded(() => goTo(current() - 1), "replay-error"));
  $("replay-next").addEventListener("click", () => guarded(() => goTo(current() + 1), "replay-error"));
  $("replay-last").addEventListener("click", () => guarded(() => goTo(state.steps), "replay-error"));
  $("replay-slider").addEventListener("change", () => guarded(() => goTo(current()), "replay-error"));
  document.addEventListener("keydown", (e) => {
    if ($("replay").hidden || e.target.tagName === "INPUT" && e.target.type !== "range") return;
    if (e.key === "ArrowRight") guarded(() => goTo(current() + 1), "replay-error");
    if (e.key === "ArrowLeft") guarded(() => goTo(current() - 1), "replay-error");
  });
  const follow = () => route().catch((err) => showError(err, $("board").hidden ? "form-error" : "error"));
  window.addEventListener("hashchange", follow);  // back, forward, a link of the page: never dropped while busy
  guarded(async () => { await loadOptions(); await route(); }, "form-error");
});
