"""What reaches the web renderer over the network may do only what a player at the board may do (issue #72,
docs/web.md "Safe by default"): the start page seats only installed players, with only the options their plugins
let a page set -- never a program, a path or a file; a foreign Host or Origin is refused; the token becomes a
cookie; half-open connections are closed; a page that never reads holds up no other.  Each test runs the real
server (aiohttp's client, raw sockets, or ``plyground play`` as a process)."""
from __future__ import annotations

import asyncio
import json
import os
import re
import resource
import selectors
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from plyground.options import Spec
from plyground.plugins.web.browser import until
from plyground.protocols import GameRecord
from plyground.registry import get_registry
from plyground.play.resume import save_unfinished

from web_helpers import (ServedGame, http_session, make_web_renderer, open_page, page_address, page_socket,
                         websocket)

aiohttp = pytest.importorskip("aiohttp", reason="the web renderer needs aiohttp: pip install 'plyground[web]'")


class CountingRegistry:
    """The real registry, counting the players it is asked to build (a spy: every call goes through)."""

    def __init__(self, registry) -> None:
        self._registry = registry
        self.built: list[str] = []

    def make_player(self, spec, game):
        self.built.append(str(spec))
        return self._registry.make_player(spec, game)

    def __getattr__(self, name):
        return getattr(self._registry, name)


def _children() -> set[int]:
    """The processes whose parent is this one."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == os.getpid():
                found.add(int(entry.name))
    return found


class StartPage:
    """``plyground play --renderer web`` with no players given: the start page, served in this process."""

    def __init__(self, save_dir: Path) -> None:
        self.registry = CountingRegistry(get_registry())
        self.renderer = make_web_renderer(save_dir)
        self.thread = threading.Thread(target=self.renderer.run_menu, args=(self.registry,), daemon=True)

    def __enter__(self) -> "StartPage":
        self.thread.start()
        until(lambda: self.renderer.server is not None and self.renderer.menu is not None, "the start page")
        return self

    def __exit__(self, *exc) -> None:
        self.renderer.close()
        self.thread.join(30)


async def _answer(ws, message: dict, timeout: float = 30.0) -> dict:
    """Send ``message``; the server's answer: a refusal, or the next snapshot that shows progress or a game."""
    await ws.send_str(json.dumps(message))

    async def read():
        while True:
            msg = await ws.receive()
            assert msg.type == aiohttp.WSMsgType.TEXT, (msg.type, msg.data)
            data = json.loads(msg.data)
            if data.get("type") == "refused" or data.get("type") == "game" or data.get("progress"):
                return data
    return await asyncio.wait_for(read(), timeout)


def _hostile_values(tmp_path: Path) -> dict[str, str]:
    secret = tmp_path / "secret.npz"
    secret.write_bytes(b"PK\x05\x06" + bytes(18))
    return {"path": str(secret), "missing path": str(tmp_path / "nothing" / "here.npz"), "system file": "/etc/passwd",
            "command": f"sh -c 'touch {tmp_path / 'CANARY'}'", "absurd number": "1e400",
            "absurd integer": "99999999999999999999", "negative": "-99999999"}


def test_the_start_page_seats_no_option_that_names_a_program_a_path_or_a_file(save_dir, tmp_path):
    """Every installed player, each of its options set to a path, a command and an absurd value: each start is
    refused naming the option or its value, nothing is built and no process is started."""
    registry = get_registry()
    values = _hostile_values(tmp_path)
    before = _children()
    with StartPage(save_dir) as served:
        menu = served.renderer.menu
        offered = {game: menu._game_choices(game)["players"] for game in menu.games}
        cases = []
        for entry in registry.entries("players"):
            game = next((g for g in menu.games if entry.name in offered[g]), menu.games[0])
            for option in entry.options:
                for kind, value in values.items():
                    spec = f"{entry.name}:{option.name}={value}"
                    if len(spec) <= 300:
                        cases.append((game, spec, option.name, kind))
        # The issue's own cases.
        cases += [("checkers", f"hub:command=sh -c 'id > {tmp_path / 'CANARY'}'", "command", "command"),
                  ("chess", f"uci:path={tmp_path / 'engine.sh'}", "path", "path"),
                  ("checkers", "alphabeta:eval=/etc/shadow", "eval", "system file"),
                  ("checkers", "alphabeta:eval=/nonexistent/x.npz", "eval", "missing path"),
                  ("checkers", "mcts:seed=99999999999999999999", "seed", "absurd integer"),
                  ("checkers", "mcts:simulations=1000000000", "simulations", "a tree to fill the memory"),
                  ("tictactoe", "alphazero:simulations=1000000000", "simulations", "a tree to fill the memory"),
                  ("checkers", "nosuchplayer", None, "unknown player")]
        (tmp_path / "engine.sh").write_text(f"#!/bin/sh\ntouch {tmp_path / 'CANARY'}\n")
        (tmp_path / "engine.sh").chmod(0o755)
        reasons: dict[str, str] = {}

        async def send_all() -> None:
            async with page_socket(aiohttp, served.renderer.url) as ws:
                for game, spec, option, kind in cases:
                    for players in ([spec, "human"], ["human", spec]):
                        answer = await _answer(ws, {"type": "start", "game": game, "players": players})
                        assert answer["type"] == "refused", (spec, answer.get("type"), answer.get("progress"))
                        if option is not None:
                            assert option in answer["reason"] or Spec.parse(spec).name in answer["reason"], \
                                (spec, answer["reason"])
                        reasons[spec] = answer["reason"]

        asyncio.run(send_all())
        assert served.registry.built == [], "a player was built from the page"
        assert served.renderer.menu.progress == "" and served.renderer.screen is None
    assert not (tmp_path / "CANARY").exists(), "a program named by the page ran"
    assert _children() - before == set(), "a process was started"
    # The page cannot tell which paths exist: the answers for an existing and a missing file are the same.
    assert reasons["alphabeta:eval=/etc/shadow"] == reasons["alphabeta:eval=/nonexistent/x.npz"]
    assert len(cases) > 200


def test_the_start_page_seats_what_a_player_at_the_board_may_choose(save_dir):
    """The other side of the check: a level's spec and a player with page-safe options are built and played."""
    with StartPage(save_dir) as served:
        levels = served.renderer.menu._game_choices("checkers")["levels"]

        async def start() -> dict:
            async with page_socket(aiohttp, served.renderer.url) as ws:
                answer = await _answer(ws, {"type": "start", "game": "checkers",
                                            "players": ["human", levels["easy"] + ",seconds=1"]})
                assert answer["type"] != "refused", answer
        asyncio.run(start())
        until(lambda: served.renderer.screen is not None, "the game the page started")
        assert served.registry.built == ["human", levels["easy"] + ",seconds=1"]


def test_resume_saved_refuses_a_saved_game_whose_player_names_a_program(save_dir, tmp_path):
    game = get_registry().make_game("checkers")
    hostile = f"hub:command=sh -c 'touch {tmp_path / 'CANARY'}'"
    record = GameRecord(game="checkers", players=("human", hostile), start=game.new_initial_state().to_text(),
                        moves=["11-15"], finished=False)
    path = save_unfinished(game, record, save_dir / "checkers-saved.pdn")
    with StartPage(save_dir) as served:

        async def resume() -> dict:
            async with page_socket(aiohttp, served.renderer.url) as ws:
                return await _answer(ws, {"type": "resume", "game": "checkers"})
        answer = asyncio.run(resume())
        assert answer["type"] == "refused" and "'command'" in answer["reason"] and path.name in answer["reason"]
        assert "plyground play --resume" in answer["reason"]
        assert served.registry.built == []
    assert not (tmp_path / "CANARY").exists()


def test_foreign_host_and_origin_are_refused_and_the_token_becomes_a_cookie(save_dir):
    with StartPage(save_dir) as served:
        url = served.renderer.url
        base, token = page_address(url)
        port = served.renderer.server.port

        async def probe() -> None:
            async with http_session(aiohttp) as http:
                # DNS rebinding: a name that is not this server's address is refused, page and socket alike.
                for path in ("/", f"/?token={token}", "/ws", "/static/page.js"):
                    async with http.get(base + path, headers={"Host": f"evil.example:{port}"}) as response:
                        assert response.status == 421, path
                async with http.get(url) as response:
                    assert response.status == 200
                    cookie = response.headers["Set-Cookie"]
                    assert token in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie
                # The cookie opens the page without the token; the token in the address is needed only once.
                async with http.get(base + "/") as response:
                    assert response.status == 200 and "page.js" in await response.text()
                for origin in ("http://evil.example", "null", f"http://localhost:{port + 1}", ""):
                    headers = {"Origin": origin} if origin else {}
                    async with http.get(base + "/ws", headers={**headers, "Connection": "Upgrade",
                                                               "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
                                                               "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}) as r:
                        assert r.status == 403 and "Origin" in await r.text(), origin
                # The same page under another of this server's names is its own origin (and cookie), and is served.
                await open_page(http, f"http://localhost:{port}/?token={token}")
                async with websocket(http, f"http://localhost:{port}") as ws:
                    msg = await ws.receive(timeout=30)
                    assert json.loads(msg.data)["type"] == "menu"
            async with http_session(aiohttp) as stranger:      # no cookie: no socket, whatever the Origin
                async with stranger.get(base + "/") as response:
                    assert response.status == 403
                with pytest.raises(aiohttp.WSServerHandshakeError):
                    async with websocket(stranger, base):
                        pass
        asyncio.run(probe())
    page_js = (Path(__file__).parents[2] / "plugins/web/static/page.js").read_text()
    assert "token" not in re.sub(r"//.*", "", page_js), "the page's script puts the token in an address"


def _serve_start_page(tmp_path: Path, files: int):
    """``plyground play --renderer web`` as a process that may open ``files`` files; (process, address)."""
    env = {**os.environ, "PLYGROUND_GAMES": str(tmp_path / "games")}

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))
    process = subprocess.Popen([sys.executable, "-m", "plyground", "play", "--renderer",
                                "web:open_browser=false,leave_after=600"], stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
                               preexec_fn=limit)
    for line in process.stderr:
        found = re.search(r"(http://\S+/\?token=\S+)", line)
        if found:
            return process, found.group(1)
    raise AssertionError(f"no address printed (exit {process.wait()})")


def test_half_open_connections_are_closed_and_the_page_still_answers(tmp_path):
    """600 connections that send half a request line, from another address, to a server that may open 256 files
    (the issue's case was 1,100 against 1,024): the page still loads, each of them is closed by the server, and
    nothing floods the log."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 1000:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
    process, url = _serve_start_page(tmp_path, 256)
    base, _ = page_address(url)
    port = int(base.rsplit(":", 1)[1])
    log: list[str] = []
    reader = threading.Thread(target=lambda: log.extend(process.stderr), daemon=True)
    reader.start()
    sockets = []
    try:
        unanswered = 0
        for _ in range(600):
            s = socket.socket()
            s.bind(("127.0.0.2", 0))
            s.settimeout(2)
            try:
                s.connect(("127.0.0.1", port))
                s.sendall(b"GET / HT")
            except socket.timeout:          # the server no longer accepts: it has run out of files
                s.close()
                unanswered += 1
                assert unanswered < 5, "the server stopped accepting connections"
                continue
            except OSError:                 # refused at once: that is one way of not holding on to it
                s.close()
                continue
            sockets.append(s)

        async def load() -> None:
            async with http_session(aiohttp) as http:
                async with http.get(url, timeout=aiohttp.ClientTimeout(total=30)) as response:
                    assert response.status == 200
        asyncio.run(load())
        # Each is closed by the server: wait (60 s at most, for all together) for every one to read as ended.
        open_ones = set(sockets)
        watch = selectors.DefaultSelector()
        for s in sockets:
            watch.register(s, selectors.EVENT_READ)
        deadline = time.monotonic() + 60
        while open_ones and time.monotonic() < deadline:
            for key, _ in watch.select(1.0):
                s = key.fileobj
                try:
                    if s.recv(4096):
                        continue
                except ConnectionResetError:
                    pass
                watch.unregister(s)
                open_ones.discard(s)
        watch.close()
        assert not open_ones, f"{len(open_ones)} of {len(sockets)} half-open connections stayed open"
    finally:
        for s in sockets:
            s.close()
        process.terminate()
        process.wait(30)
        reader.join(10)
    text = "".join(log)
    assert "Too many open files" not in text and len(text) < 10_000, text[-2000:]


def _client_frame(payload: bytes) -> bytes:
    """One WebSocket text frame as a client sends it (masked), ``payload`` under 126 bytes."""
    mask = b"\x01\x02\x03\x04"
    return bytes([0x81, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def test_a_page_that_never_reads_holds_up_no_other(save_dir):
    """One page completes its handshake and never reads; another page's every change still arrives, and the
    silent one is dropped."""
    renderer = make_web_renderer(save_dir)
    served = ServedGame(renderer, "checkers", ("human", "random")).start()
    url = renderer.url
    base, _ = page_address(url)
    host = base.split("://", 1)[1]
    cookie = f"plyground-{renderer.server.port}={renderer.server.token}"
    silent = socket.socket()
    silent.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    silent.connect(("127.0.0.1", renderer.server.port))
    silent.sendall((f"GET /ws HTTP/1.1\r\nHost: {host}\r\nOrigin: http://{host}\r\nCookie: {cookie}\r\n"
                    "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += silent.recv(1)
    assert b" 101 " in head.split(b"\r\n")[0], head
    # From here on the silent page reads nothing; it sends messages the server answers (refusals), so that once
    # what it is sent backs up, its handler waits for room for their answers.
    talking = threading.Event()
    talking.set()

    def talk() -> None:
        while talking.is_set():
            try:
                silent.sendall(_client_frame(b"not json"))
            except OSError:              # dropped
                return
            time.sleep(0.02)
    talker = threading.Thread(target=talk, daemon=True)
    talker.start()

    async def flip_and_watch() -> int:
        async with page_socket(aiohttp, url) as ws:
            board = json.loads((await ws.receive(timeout=30)).data)["board"]     # the page as it opens
            seen = 0
            for _ in range(300):      # each flip's picture seen before the next (one picture shows both)
                await ws.send_str(json.dumps({"type": "key", "key": "F"}))

                async def changed():
                    while True:
                        msg = await ws.receive()
                        assert msg.type == aiohttp.WSMsgType.TEXT, (msg.type, msg.data)
                        data = json.loads(msg.data)
                        if data.get("type") == "game" and data["board"] != board:
                            return data["board"]
                try:
                    board = await asyncio.wait_for(changed(), 30)
                except asyncio.TimeoutError:
                    raise AssertionError(f"flip {seen + 1}: no change seen in 30 s") from None
                seen += 1
            return seen

    try:
        assert asyncio.run(flip_and_watch()) == 300
        silent.settimeout(60)
        until(lambda: renderer.server.dropped >= 1, "the silent page dropped", timeout=60)
        # Dropped whole: its handler waiting for room in its queue gave up, so the page count is right again.
        until(lambda: len(renderer.server.pages) == 0, "the dropped page forgotten", timeout=60)
        assert renderer.pages == 0
    finally:
        talking.clear()
        talker.join(10)
        silent.close()
        renderer.close()
        served.session.close_players()
        served.thread.join(30)
