"""The web renderer against hostile pages (no browser needed: aiohttp's own client): requests without the token,
malformed, wrong and oversized messages, a flood of 10,000 messages, a page closed while a bot searches.  Each gets
one clear answer or is ignored; the server stays up, its memory flat, and the game record whole."""
from __future__ import annotations

import asyncio
import json

import pytest

from plyground.registry import get_registry
from plyground.play.resume import load_unfinished

from web_helpers import (ServedGame, http_session, make_web_renderer, open_page, page_address, page_socket,
                         websocket)

aiohttp = pytest.importorskip("aiohttp", reason="the web renderer needs aiohttp: pip install 'plyground[web]'")

#: Messages refused, each with words its reason must contain (two cases, say, of every field check).
REFUSED = [
    ("not json {", "not JSON"),
    ("", "not JSON"),
    ("[]", "JSON object"),
    ("42", "JSON object"),
    ('"a move"', "JSON object"),
    ("null", "JSON object"),
    ("{}", "unknown message type null"),
    ('{"type": "explode"}', "unknown message type \"explode\""),
    ('{"type": 5}', "unknown message type 5"),
    ('{"type": "press"}', "needs its 'x' field"),
    ('{"type": "press", "x": "a", "y": 1}', "press.x must be a number"),
    ('{"type": "press", "x": 1e999, "y": 1}', "press.x must be a number"),
    ('{"type": "press", "x": NaN, "y": 1}', "press.x must be a number"),
    ('{"type": "press", "x": true, "y": 1}', "press.x must be a number"),
    ('{"type": "press", "x": 1, "y": 1, "button": 7}', "press.button must be a whole number from 0 to 2"),
    ('{"type": "press", "x": 1, "y": 1, "extra": 1}', "has no field 'extra'"),
    ('{"type": "drag", "x": 1}', "needs its 'y' field"),
    ('{"type": "release", "x": [1], "y": 1}', "release.x must be a number"),
    ('{"type": "ply", "ply": -1}', "ply.ply must be a whole number"),
    ('{"type": "ply", "ply": 999}', "no move 999"),
    ('{"type": "ply", "ply": "1"}', "ply.ply must be a whole number"),
    ('{"type": "ply", "ply": 1.5}', "ply.ply must be a whole number"),
    ('{"type": "button", "name": "self_destruct"}', "no 'self_destruct' button now"),
    ('{"type": "button", "name": "undo"}', "cannot be used now"),
    ('{"type": "button", "name": "again"}', "no 'again' button now"),
    ('{"type": "button", "name": 5}', "button.name must be text"),
    ('{"type": "button"}', "needs its 'name' field"),
    ('{"type": "key", "key": "Q"}', "no key 'Q'"),
    ('{"type": "key", "key": "' + "x" * 100 + '"}', "at most 20"),
    ('{"type": "key", "key": "\\ud800"}', "no key"),
    ('{"type": "start", "game": "checkers", "players": ["human", "random"]}', "start page is not shown"),
    ('{"type": "open", "game": "checkers", "file": "/etc/passwd"}', "start page is not shown"),
    ('{"type": "resume", "game": "checkers"}', "start page is not shown"),
    ('{"type": "start", "game": "checkers", "players": ["human"]}', "list of two player specs"),
    ("[" * 3000 + "]" * 3000, "longer than 4096"),
    ("[" * 2000 + "]" * 2000, "nests too deeply"),
    ('{"type": "key", "key": "' + "\u00e9" * 2100 + '"}', "longer than 4096 bytes"),
    (b"\x00\x01binary", "binary messages are not taken"),
]


async def _receive_until(ws, predicate, what: str, timeout: float = 30.0):
    """Read messages until one satisfies ``predicate``; it is returned."""
    async def read():
        while True:
            msg = await ws.receive()
            if msg.type != aiohttp.WSMsgType.TEXT:
                raise AssertionError(f"the connection ended ({msg.type}, {msg.data}) while waiting for {what}")
            data = json.loads(msg.data)
            if predicate(data):
                return data
    try:
        return await asyncio.wait_for(read(), timeout)
    except asyncio.TimeoutError:
        raise AssertionError(f"timed out waiting for {what}") from None


async def _click_11_15(ws, renderer, release: bool = False) -> None:
    """Press on square 11, then 15 (checkers' first move 11-15), as a person does on the page (``release``: and
    let go at each)."""
    with renderer.lock:
        view = renderer.screen.view
        piece, target = view.cell_center(view.square_cell(10)), view.cell_center(view.square_cell(14))
    for x, y in (piece, target):
        await ws.send_str(json.dumps({"type": "press", "x": x, "y": y}))
        if release:
            await ws.send_str(json.dumps({"type": "release", "x": x, "y": y}))


def _rss_kib() -> int:
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def test_hostile_messages_get_one_clear_answer_and_the_game_goes_on(save_dir):
    renderer = make_web_renderer(save_dir)
    served = ServedGame(renderer, "checkers", ("human", "alphabeta:depth=2")).start()
    url = renderer.url
    base, token = page_address(url)
    answers: dict[str, int] = {}

    async def hostile() -> None:
        async with http_session(aiohttp) as http:
            # Without the right token neither the page nor its socket answers.
            for path in ("/", "/?token=", "/?token=wrong", "/ws", "/ws?token=wrong", f"/ws?token={token}",
                         f"/ws?token={token}x"):
                async with http.get(base + path, headers={"Origin": base}) as response:
                    assert response.status == 403, path
                    answers["token refused"] = answers.get("token refused", 0) + 1
            for path in ("/static/../pyproject.toml", "/static/secrets.txt", "/static/%2e%2e%2fpyproject.toml"):
                async with http.get(base + path) as response:
                    assert response.status == 404, path
                    answers["no such file"] = answers.get("no such file", 0) + 1
            assert "page.js" in await open_page(http, url)

            async with websocket(http, base) as ws:
                await _receive_until(ws, lambda d: d.get("type") == "game" and "Your move" in d["status"],
                                     "the person's move")
                for payload, words in REFUSED:
                    if isinstance(payload, bytes):
                        await ws.send_bytes(payload)
                    else:
                        await ws.send_str(payload)
                    reply = await _receive_until(ws, lambda d: d.get("type") == "refused", f"the answer to {payload[:40]!r}")
                    assert words in reply["reason"], (payload[:60], reply["reason"])
                    answers["refused"] = answers.get("refused", 0) + 1

                # An illegal move by clicks: the game's own reason, shown as the window shows it.
                with renderer.lock:
                    view = renderer.screen.view
                    empty = view.cell_center(view.square_cell(17))      # square 18: empty at the start
                    theirs = view.cell_center(view.square_cell(28))     # square 29: a White man
                for x, y in (empty, theirs):
                    await ws.send_str(json.dumps({"type": "press", "x": x, "y": y}))
                    shown = await _receive_until(ws, lambda d: d.get("type") == "game" and d["message"]
                                                 and d["message"]["kind"] == "error", "the illegal click's reason")
                    assert shown["message"]["text"]
                    answers["illegal move explained"] = answers.get("illegal move explained", 0) + 1
                # Clicks far off the board: nothing happens.
                for x, y in ((-50, -50), (99999, 3), (3, -99999)):
                    await ws.send_str(json.dumps({"type": "press", "x": x, "y": y}))
                    answers["ignored"] = answers.get("ignored", 0) + 1

                # A flood of 10,000 messages, sent without reading: every bad one answered, the server up.
                before = _rss_kib()
                refusals = renderer.server.refusals
                for i in range(10_000):
                    await ws.send_str('{"type": "key", "key": "N"}' if i % 2 else "flood " + str(i))
                await _receive_until(ws, lambda d: renderer.server.refusals - refusals >= 5_000,
                                     "the flood's answers")
                await asyncio.sleep(0)
                after = _rss_kib()
                print(f"\nflood of 10,000 messages: resident memory {before / 1024:.1f} -> {after / 1024:.1f} MiB")
                answers["flood"] = 1
                assert after - before < 64 * 1024, f"memory grew {after - before} KiB under the flood"

            # A frame past the server's limit ends that connection (1009, message too big); the server stays up.
            async with websocket(http, base) as ws:
                await ws.send_str("x" * (70 * 1024))
                msg = await ws.receive(timeout=30)
                while msg.type == aiohttp.WSMsgType.TEXT:       # the pictures sent before it was read
                    msg = await ws.receive(timeout=30)
                assert msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.CLOSING)
                assert ws.close_code == 1009             # message too big
                answers["oversized frame"] = 1

            # Still serving, and the game goes on: a legal move from a new page reaches the game.
            async with websocket(http, base) as ws:
                state = await _receive_until(ws, lambda d: d.get("type") == "game" and "Your move" in d["status"],
                                             "the game after the barrage")
                assert state["moves"] == []
                await _click_11_15(ws, renderer, release=True)
                await _receive_until(ws, lambda d: d.get("type") == "game" and len(d["moves"]) == 1
                                     and "Your move" in d["status"], "the move and the bot's answer")
                await ws.send_str(json.dumps({"type": "button", "name": "save_now"}))
                await _receive_until(ws, lambda d: d.get("type") == "game" and d["message"]
                                     and "Saved the game so far" in d["message"]["text"], "the save")

    try:
        asyncio.run(hostile())
        with renderer.lock:
            moves = list(renderer.screen.moves)
        assert moves[0] == "11-15" and len(moves) == 2
        saved = list(save_dir.glob("checkers-saved*.pdn"))
        assert len(saved) == 1 and load_unfinished(served.game, saved[0]).moves == moves
        total = sum(answers.values())
        assert total >= 50, answers
    finally:
        renderer.close()
        served.finish()


def test_a_page_closed_while_the_bot_searches_stops_the_search_and_keeps_the_game(save_dir):
    renderer = make_web_renderer(save_dir, leave_after=0.2)
    # The bot would search for 60 s; closing the page must stop it long before.
    served = ServedGame(renderer, "checkers", ("human", "alphabeta:seconds=60,depth=60,book=none")).start()

    async def move_then_close() -> None:
        async with page_socket(aiohttp, renderer.url) as ws:
            await _receive_until(ws, lambda d: d.get("type") == "game" and "Your move" in d["status"],
                                 "the person's move")
            await _click_11_15(ws, renderer)
            await _receive_until(ws, lambda d: d.get("type") == "game" and "thinking" in d["status"],
                                 "the bot thinking")
        # the page is closed here, mid-search

    try:
        asyncio.run(move_then_close())
        served.thread.join(30)           # far less than the bot's 60 s: its search was stopped
        assert not served.thread.is_alive(), "closing the page did not stop the game"
        record = served.record
        assert record is not None and not record.finished and record.moves == ["11-15"]
        saved = list(save_dir.glob("checkers-saved*.pdn"))
        assert len(saved) == 1 and load_unfinished(served.game, saved[0]).moves == ["11-15"]
        assert renderer.page_closed
    finally:
        renderer.close()
        served.session.close_players()


def test_a_page_closed_in_a_game_its_start_page_began_names_the_file_it_is_kept_in(save_dir, capsys):
    """Issue #73, point 6: a game started from the start page, its page closed mid-game, is kept and the terminal
    names the file, as it does for a game the command line started."""
    import threading
    from plyground.plugins.web.browser import until
    renderer = make_web_renderer(save_dir, leave_after=0.2)
    menu = threading.Thread(target=renderer.run_menu, daemon=True)
    menu.start()
    until(lambda: renderer.server is not None and renderer.menu is not None, "the start page")

    async def start_move_then_close() -> None:
        async with page_socket(aiohttp, renderer.url) as ws:
            await ws.send_str(json.dumps({"type": "start", "game": "checkers",
                                          "players": ["human", "random"]}))
            await _receive_until(ws, lambda d: d.get("type") == "game" and "Your move" in d["status"],
                                 "the person's move")
            await _click_11_15(ws, renderer)
            await _receive_until(ws, lambda d: d.get("type") == "game" and "Your move" in d["status"]
                                 and len(renderer.screen.moves) == 2, "the bot's reply")
        # the page is closed here, mid-game

    try:
        asyncio.run(start_move_then_close())
        menu.join(30)
        assert not menu.is_alive(), "closing the page did not end the start page"
        saved = save_dir / "checkers-saved.pdn"
        assert load_unfinished(get_registry().make_game("checkers"), saved).moves[0] == "11-15"
        assert f"The game so far is saved in {saved}; plyground play --resume {saved}" in capsys.readouterr().err
    finally:
        renderer.close()


def test_take_back_after_the_bots_reply_clears_its_search_from_the_page(save_dir):
    """Issue #73 point 5: after Take back, the page's analysis panel no longer shows the search of the bot's
    reply taken back."""
    renderer = make_web_renderer(save_dir, leave_after=0.2)
    served = ServedGame(renderer, "checkers", ("human", "alphabeta:eval=learned,depth=4")).start()
    turn = "Your move"

    async def move_then_take_back() -> dict:
        async with page_socket(aiohttp, renderer.url) as ws:
            await _receive_until(ws, lambda d: d.get("type") == "game" and turn in d["status"], "your move")
            await ws.send_str(json.dumps({"type": "key", "key": "A"}))       # the analysis panel
            await _click_11_15(ws, renderer)
            replied = await _receive_until(
                ws, lambda d: d.get("type") == "game" and turn in d["status"] and len(d["moves"]) == 1
                and d["moves"][0][1][1] is not None, "the bot's reply")
            assert replied["analysis"]["title"] == "alphabeta:eval=learned,depth=4", replied["analysis"]
            await ws.send_str(json.dumps({"type": "button", "name": "undo"}))
            return await _receive_until(
                ws, lambda d: d.get("type") == "game" and turn in d["status"] and d["moves"] == [],
                "the moves taken back")

    try:
        taken_back = asyncio.run(move_then_take_back())
        assert taken_back["analysis"] == {"title": "Analysis", "lines": renderer.screen.NO_ANALYSIS[1]}
        served.thread.join(30)                   # the page closed: the game is kept and ends
    finally:
        renderer.close()
        served.session.close_players()
