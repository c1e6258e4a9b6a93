// plyground's page: shows what the server sends (the board as SVG, the panel as data) and sends back the
// person's clicks, drags, keys and buttons.  Every rule of the game lives on the server: this script only draws
// and forwards.  No build step, no library.
"use strict";

// The token in the printed address was exchanged for a cookie on the first load: drop it from the address bar
// (and so from history and bookmarks); the WebSocket's address carries none.
if (location.search) history.replaceState(null, "", location.pathname);
const $ = (id) => document.getElementById(id);
let socket = null;
let shown = null;          // the last snapshot
let ended = false;         // the server said the game is over and closed the connection
let retry = 250;

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws`);
  socket.onopen = () => { retry = 250; $("connection").hidden = true; };
  socket.onmessage = (event) => receive(JSON.parse(event.data));
  socket.onclose = (event) => {
    if (event.code === 1001 || ended) {
      ended = true;
      notice("The game has ended and plyground has stopped serving it: you may close this page.");
      return;
    }
    notice("Connection lost; trying again\u2026");
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 4000);
  };
}

function notice(text) {
  $("connection").textContent = text;
  $("connection").hidden = false;
}

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

function receive(data) {
  if (data.type === "game") showGame(data);
  else if (data.type === "editor") showEditor(data);
  else if (data.type === "menu") showMenu(data);
  else if (data.type === "refused") showRefusal(data.reason);
  else if (data.type === "wait") notice(data.text);
  else if (data.type === "error") notice("The server could not draw the page: " + data.text);
}

// The page's three views (the start page, the position editor, a game): the one named shown, the others hidden.
function showView(name) {
  for (const id of ["menu", "editor", "game"]) $(id).hidden = id !== name;
  $("connection").hidden = true;
}

function showRefusal(reason) {
  const boxes = { menu: "menu-error", editor: "editor-status" };
  const box = $(boxes[shown && shown.type] || "message");
  box.textContent = reason.charAt(0).toUpperCase() + reason.slice(1);
  box.className = "message error";
  box.hidden = false;
}

// ---------------------------------------------------------------- the game
const drag = { pressed: null, dragging: false, point: null };
let boardShown = null;     // the board's SVG on the page

function showGame(data) {
  const first = !shown || shown.type !== "game";
  shown = data;
  showView("game");
  document.body.style.background = data.background;
  $("game-title").textContent = data.game;
  if (first || data.board !== boardShown) {      // a clock's tick leaves the board as it is
    $("board").innerHTML = data.board;
    boardShown = data.board;
  }
  if (data.dragged && drag.dragging && drag.point) placeDragged(drag.point);
  else if (!data.dragged) $("board").querySelector("#dragged")?.remove();

  const players = $("players");
  players.replaceChildren(...data.players.map((p) => {
    const row = document.createElement("div");
    row.className = "player" + (p.to_move ? " to-move" : "") + (p.thinking ? " thinking" : "");
    row.innerHTML = p.icon;
    const who = document.createElement("span");
    who.className = "who";
    who.textContent = `${p.side}: ${p.name}${p.you ? " (you)" : ""}`;
    row.append(who);
    if (p.captured) row.insertAdjacentHTML("beforeend", p.captured);
    if (p.clock) {
      const clock = document.createElement("span");
      clock.className = "clock" + (p.clock.low ? " low" : "");
      clock.textContent = p.clock.text;
      row.append(clock);
    }
    return row;
  }));
  $("status").textContent = data.status;
  $("status").className = data.over ? "over" : "";
  const message = $("message");
  message.textContent = data.message ? data.message.text : "";
  message.className = "message " + (data.message ? data.message.kind : "");

  $("analysis").hidden = !data.analysis;
  if (data.analysis) {
    $("analysis-title").textContent = "Analysis: " + data.analysis.title;
    $("analysis-lines").textContent = data.analysis.lines.join("\n");
  }
  showReport(data.report);
  showMoves(data.moves, data.shown_ply);
  $("save-to").hidden = !data.save_to;
  $("save-to").textContent = data.save_to ? "Save game writes to " + data.save_to : "";
  showButtons($("buttons"), data.buttons);
  showTools(data);
  $("keys").textContent = data.keys;
  if (first) $("game").focus();
}

// The server's buttons (the game's, the editor's) in ``box``: each sends its name.
function showButtons(box, buttons) {
  box.replaceChildren(...buttons.map((b) => {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = b.label;
    button.dataset.name = b.name;
    button.disabled = !b.enabled;
    if (b.primary) button.classList.add("primary");
    if (b.label.length > 18) button.classList.add("wide");
    button.onclick = () => send({ type: "button", name: b.name });
    return button;
  }));
}

// ---------------------------------------------------------------- the page's own controls
// Download game and Copy position work on what the snapshot carries (the game's record, the position's text):
// nothing is asked of the server, and nothing the page sends names a file.
function showTools(data) {
  $("download-game").disabled = !data.record;
  $("download-game").textContent = data.record ? data.record.label : "Download game";
  $("copy-position").disabled = !data.position;
  $("copy-position").textContent = data.position ? data.position.label : "Copy position";
}

function toolsNote(text) {
  $("tools-note").textContent = text;
  $("tools-note").hidden = !text;
}

$("download-game").onclick = () => {
  if (!shown || !shown.record) return;
  const url = URL.createObjectURL(new Blob([shown.record.text], { type: "text/plain" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = shown.record.name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
  toolsNote(`Downloaded as ${shown.record.name}`);
};

// The clipboard where the browser allows it (a page from this machine, 127.0.0.1); else, as on a page served to
// the local network over plain http, the text selected in a box for the person to copy.
$("copy-position").onclick = async () => {
  if (!shown || !shown.position) return;
  const text = shown.position.text;
  const box = $("position-text");
  box.value = text;
  box.hidden = false;
  try {
    await navigator.clipboard.writeText(text);
    toolsNote("Position copied to the clipboard");
  } catch (error) {
    box.focus();
    box.select();
    toolsNote("Position selected: press Ctrl+C (\u2318C) to copy it");
  }
};

// The game report: its lines, and its evaluation graph (SVG drawn on the server); a click on the graph goes to
// the ply under the pointer.
let graphShown = null;
function showReport(report) {
  $("report").hidden = !report;
  if (!report) return;
  $("report-title").textContent = report.title;
  $("report-lines").textContent = report.lines.join("\n");
  $("report-lines").hidden = !report.lines.length;
  if (report.graph !== graphShown) {
    $("report-graph").innerHTML = report.graph || "";
    graphShown = report.graph;
  }
}

$("report-graph").addEventListener("click", (event) => {
  const svg = $("report-graph").querySelector("svg");
  if (!svg || !shown || !shown.report) return;
  const box = svg.getBoundingClientRect();
  const ply = Math.round((event.clientX - box.left) / box.width * shown.report.plies);
  send({ type: "ply", ply: Math.max(0, Math.min(shown.report.plies, ply)) });
});

function showMoves(lines, shownPly) {
  const list = $("moves");
  const atBottom = list.scrollTop + list.clientHeight >= list.scrollHeight - 4;
  list.replaceChildren(...lines.map(([number, pair]) => {
    const item = document.createElement("li");
    const label = document.createElement("span");
    label.className = "number";
    label.textContent = number + ".";
    item.append(label);
    pair.forEach((entry, i) => {
      const cell = document.createElement("span");
      if (entry) {
        const [ply, text] = entry;
        cell.className = "move" + (ply === shownPly ? " shown" : "");
        cell.textContent = text;
        cell.dataset.ply = ply;
        cell.onclick = () => send({ type: "ply", ply });
      } else if (i === 0) {
        cell.textContent = "\u2026";
      }
      item.append(cell);
    });
    return item;
  }));
  const current = list.querySelector(".move.shown");
  if (current) current.scrollIntoView({ block: "nearest" });
  else if (atBottom) list.scrollTop = list.scrollHeight;
}

// Where the pointer is on the board picture in ``box`` (the game's, the editor's), in the picture's own units:
// what the server's view maps to a square.
function boardPoint(event, box = $("board")) {
  const svg = box.querySelector("svg");
  if (!svg) return null;
  const point = svg.createSVGPoint();
  point.x = event.clientX;
  point.y = event.clientY;
  const local = point.matrixTransform(svg.getScreenCTM().inverse());
  return { x: Math.round(local.x), y: Math.round(local.y) };
}

function placeDragged(point) {
  const svg = $("board").querySelector("svg");
  if (!svg || !shown || !shown.dragged) return;
  let group = svg.querySelector("#dragged");
  if (!group) {
    group = document.createElementNS("http://www.w3.org/2000/svg", "g");
    group.id = "dragged";
    group.innerHTML = shown.dragged;
    svg.append(group);
  }
  group.setAttribute("transform", `translate(${point.x} ${point.y})`);
}

$("board").addEventListener("pointerdown", (event) => {
  const point = boardPoint(event);
  if (!point) return;
  event.preventDefault();
  if (event.button === 2) { send({ type: "press", x: point.x, y: point.y, button: 2 }); return; }
  if (event.button !== 0) return;
  $("board").setPointerCapture(event.pointerId);
  drag.pressed = point; drag.dragging = false; drag.point = point;
  send({ type: "press", x: point.x, y: point.y });
});
$("board").addEventListener("pointermove", (event) => {
  if (!drag.pressed) return;
  const point = boardPoint(event);
  if (!point) return;
  drag.point = point;
  if (!drag.dragging && Math.hypot(point.x - drag.pressed.x, point.y - drag.pressed.y) > 6) {
    drag.dragging = true;
    send({ type: "drag", x: point.x, y: point.y });
  }
  if (drag.dragging) placeDragged(point);
});
function release(event) {
  if (!drag.pressed) return;
  const point = boardPoint(event) || drag.point;
  const dragged = drag.dragging;
  drag.pressed = null; drag.dragging = false;
  if (dragged && point) send({ type: "release", x: point.x, y: point.y });
  else if (point) send({ type: "release", x: point.x, y: point.y });   // a click: as the window, press then release
}
$("board").addEventListener("pointerup", release);
$("board").addEventListener("pointercancel", release);
$("board").addEventListener("contextmenu", (event) => event.preventDefault());

const KEYS = { u: "U", backspace: "Backspace", h: "H", a: "A", i: "I", s: "S", f: "F", n: "N", escape: "Escape",
  arrowleft: "Left", arrowright: "Right", home: "Home", end: "End", p: "P", r: "R" };
document.addEventListener("keydown", (event) => {
  if (!shown || shown.type !== "game" || event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target.tagName;
  if (target === "INPUT" || target === "SELECT" || target === "TEXTAREA") return;
  const key = KEYS[event.key.toLowerCase()];
  if (!key) return;
  event.preventDefault();
  send({ type: "key", key });
});

// ---------------------------------------------------------------- the position editor
// The board being set up (a click puts the chosen piece, a right click empties the square), the palette, the side
// to move and the buttons; what the setup is and whether it may be played is the server's.
function showEditor(data) {
  shown = data;
  showView("editor");
  document.body.style.background = data.background;
  $("editor-title").textContent = `${data.game}: set up a position`;
  $("editor-board").innerHTML = data.board;
  $("palette").replaceChildren(...data.pieces.map((piece) => {
    const button = document.createElement("button");
    button.type = "button";
    button.title = piece.name;
    button.setAttribute("aria-label", piece.name);
    button.setAttribute("aria-pressed", String(piece.chosen));
    button.dataset.symbol = piece.symbol;
    button.innerHTML = piece.svg;
    if (piece.chosen) button.classList.add("chosen");
    button.onclick = () => send({ type: "piece", symbol: piece.symbol });
    return button;
  }));
  fillSelect($("editor-side"), data.sides.map((side, i) => [String(i), side]), String(data.side));
  $("editor-status").textContent = data.status;
  $("editor-status").className = "message " + (data.problem ? "error" : "info");
  showButtons($("editor-buttons"), data.buttons);
  $("editor-text").value = data.text;
}

$("editor-side").onchange = () => send({ type: "side", side: Number($("editor-side").value) });
$("editor-board").addEventListener("pointerdown", (event) => {
  const point = boardPoint(event, $("editor-board"));
  if (!point || (event.button !== 0 && event.button !== 2)) return;
  event.preventDefault();
  send({ type: "press", x: point.x, y: point.y, button: event.button });
});
$("editor-board").addEventListener("contextmenu", (event) => event.preventDefault());

// ---------------------------------------------------------------- the start page
let menuGame = null;        // the game chosen on the start page
const chosen = {};          // per game: {level, players: [spec, spec]} as the person left them

function showMenu(data) {
  const first = !shown || shown.type !== "menu";
  shown = data;
  showView("menu");
  document.body.style.background = "";
  const games = Object.fromEntries(data.games.map((g) => [g.name, g]));
  if (first || !games[menuGame]) {
    menuGame = games[menuGame] ? menuGame : data.game;
    fillSelect($("menu-game"), data.games.map((g) => [g.name, g.title]), menuGame);
    fillSelect($("menu-clock"), data.clocks.map((c) => [c, c]), $("menu-clock").value || data.clocks[0]);
    showChoices(games[menuGame]);
  }
  $("menu-game").onchange = () => {
    menuGame = $("menu-game").value;
    showChoices(games[menuGame]);
    showSaved(games[menuGame]);      // that game's own saved games at once, not the last game's
  };
  for (const [id, text] of [["menu-progress", data.progress], ["menu-error", data.error],
                            ["menu-notice", data.notice]]) {
    $(id).textContent = text;
    $(id).hidden = !text;
  }
  $("menu-start").disabled = $("menu-setup").disabled = Boolean(data.progress);
  showSaved(games[menuGame]);
}

// The chosen game's Resume saved, its record files (Open game) and its rules.
function showSaved(game) {
  $("menu-resume").hidden = !game.saved;
  $("menu-resume").textContent = game.saved ? `Resume saved (${game.saved})` : "Resume saved";
  $("menu-files").replaceChildren(...game.files.map((file) => {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = file;
    button.onclick = () => send({ type: "open", game: menuGame, file });
    item.append(button);
    return item;
  }));
  if (!game.files.length) $("menu-files").innerHTML = "<li>No saved games of this game yet.</li>";
  $("menu-rules-text").textContent = game.rules;
}

function fillSelect(select, options, value) {
  select.replaceChildren(...options.map(([v, label]) => new Option(label, v, false, v === value)));
}

function splitSpec(spec) {
  const at = spec.indexOf(":");
  return at < 0 ? [spec, ""] : [spec.slice(0, at), spec.slice(at + 1)];
}

function showChoices(game) {
  const state = chosen[game.name] || (chosen[game.name] = { level: game.level, players: [...game.defaults] });
  $("menu-setup").hidden = !game.setup;
  const levels = Object.keys(game.levels);
  fillSelect($("menu-level"), [...levels.map((l) => [l, l]), ["custom", "custom"]],
             levels.includes(state.level) ? state.level : "custom");
  $("menu-level").parentElement.hidden = !levels.length;
  $("menu-level").onchange = () => {
    const level = $("menu-level").value;
    state.level = level;
    if (level === "custom") return;
    const bots = [0, 1].filter((i) => splitSpec(state.players[i])[0] !== "human");
    for (const i of (bots.length ? bots : [1])) state.players[i] = game.levels[level];
    showSides(game, state);
  };
  showSides(game, state);
}

function showSides(game, state) {
  const sides = $("menu-sides");
  sides.replaceChildren(...game.sides.map((side, i) => {
    const [player, options] = splitSpec(state.players[i]);
    const label = document.createElement("label");
    label.textContent = side + " ";
    const select = document.createElement("select");
    select.id = `menu-player-${i}`;
    fillSelect(select, game.players.map((p) => [p, p]), player);
    const input = document.createElement("input");
    input.id = `menu-options-${i}`;
    input.className = "side-options";
    input.placeholder = "options, e.g. depth=6";
    input.value = options;
    const changed = () => {
      state.players[i] = input.value.trim() ? `${select.value}:${input.value.trim()}` : select.value;
      state.level = "custom";
      $("menu-level").value = "custom";
    };
    select.onchange = () => { input.value = ""; changed(); };
    input.oninput = changed;
    label.append(select, input);
    return label;
  }));
}

// Start and Set up position send the same choices (the editor's Play starts them from the position set up).
function sendChoices(type) {
  send({ type, game: menuGame, players: chosen[menuGame].players, clock: $("menu-clock").value,
         position: $("menu-position").value });
}
$("start-form").addEventListener("submit", (event) => {
  event.preventDefault();
  sendChoices("start");
});
$("menu-setup").onclick = () => sendChoices("setup");
$("menu-resume").onclick = () => send({ type: "resume", game: menuGame });

connect();
