"""The page plays where pygame cannot be imported (issue #75 point 1): the host (every module of framework/) and the
web renderer import no GUI library, and board views are the host's kind, not the pygame plugin's.

In a process where ``import pygame`` fails (a finder on ``sys.meta_path`` refuses it, as a machine without pygame
would), every module of framework/ and of the web renderer is imported; then a game of tic-tac-toe is started from
the start page and played through the page's own messages over its WebSocket (``start``; ``press``/``release`` on
the board at a cell's centre; the ``save`` and ``leave`` buttons) against a random bot, and saved."""
from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
#: The folders that must import no GUI library, at the top of a module or inside a function: the host, and the web
#: renderer (which draws on the host's SVG canvas).
PYGAME_FREE = ("framework", "plugins/web")


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every absolute import in ``path``, wherever it stands."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.append((node.lineno, node.module))
    return found


def test_the_host_and_the_web_renderer_import_neither_pygame_nor_the_window():
    offenders = [f"{path.relative_to(REPO)}:{line}: {module}"
                 for folder in PYGAME_FREE for path in sorted((REPO / folder).rglob("*.py"))
                 for line, module in _imports(path)
                 if module.split(".")[0] == "pygame" or module.startswith("plyground.plugins.pygame_gui")]
    assert offenders == [], "\n".join(offenders)

SCRIPT = textwrap.dedent('''
    import asyncio, importlib, importlib.abc, json, pathlib, sys, threading

    class NoPygame(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name == "pygame" or name.startswith("pygame."):
                raise ModuleNotFoundError(f"No module named {name!r} (refused by the test)", name=name)
            return None

    sys.meta_path.insert(0, NoPygame())
    save_dir = pathlib.Path(sys.argv[1])

    import plyground
    root = pathlib.Path(plyground.__file__).parent
    framework = []
    for path in sorted(root.rglob("*.py")):
        parts = [p for p in path.relative_to(root).with_suffix("").parts if p != "__init__"]
        if "__pycache__" not in parts and parts[-1:] != ["__main__"]:
            framework.append(".".join(["plyground", *parts]))
    for name in framework:
        importlib.import_module(name)
    for name in ("renderer", "screen", "menu", "editor", "server", "messages"):
        importlib.import_module(f"plyground.plugins.web.{name}")

    import aiohttp
    from plyground.plugins.web.browser import until
    from plyground.registry import get_registry

    registry = get_registry()
    renderer = registry.make_renderer(f"web:open_browser=false,bot_delay=0,save_dir={save_dir}",
                                      registry.make_game("tictactoe"))
    menu = threading.Thread(target=renderer.run_menu, daemon=True)
    menu.start()
    until(lambda: renderer.server is not None and renderer.menu is not None, "the start page")

    async def receive_until(ws, wanted, what):
        while True:
            picture = json.loads(await asyncio.wait_for(ws.receive_str(), 30))
            if picture.get("type") == "refused":
                raise AssertionError(f"refused while waiting for {what}: {picture['reason']}")
            if wanted(picture):
                return picture

    async def send(ws, **message):
        await ws.send_str(json.dumps(message))

    def moves_in(picture):
        return sum(1 for _, pair in picture["moves"] for entry in pair if entry)

    async def play():
        base, _ = renderer.url.split("/?token=")
        host = base.split("://", 1)[1]
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
            async with http.get(renderer.url) as response:
                assert response.status == 200
            async with http.ws_connect(f"{base}/ws", headers={"Origin": f"http://{host}"}) as ws:
                await receive_until(ws, lambda p: p["type"] == "menu", "the start page")
                await send(ws, type="start", game="tictactoe", players=["human", "random"])
                clicks, played = 0, -1
                while True:
                    picture = await receive_until(ws, lambda p: p["type"] == "game" and (p["over"] or (
                        "Your move" in p["status"] and moves_in(p) > played)), "the person's move or the game's end")
                    if picture["over"]:
                        break
                    with renderer.lock:            # the cell of a legal move, where the page shows it
                        screen = renderer.screen
                        state = screen.state
                        move = state.move_to_text(state.legal_moves()[0])
                        x, y = screen.view.cell_center(screen.view.move_cells(state, move)[0])
                    played = moves_in(picture)
                    await send(ws, type="press", x=x, y=y)
                    await send(ws, type="release", x=x, y=y)
                    clicks += 1
                await send(ws, type="button", name="save")
                saved = await receive_until(ws, lambda p: p["type"] == "game" and p["message"]
                                            and p["message"]["text"].startswith("Saved to"), "the game saved")
                record = renderer.screen.record
                await send(ws, type="button", name="leave")
                await receive_until(ws, lambda p: p["type"] == "menu", "the start page again")
                return {"clicks": clicks, "moves": list(record.moves), "finished": record.finished,
                        "saved": saved["message"]["text"], "board": picture["board"][:200],
                        "buttons": [b["name"] for b in picture["buttons"]]}

    try:
        result = asyncio.run(play())
    finally:
        renderer.close()
    result["pygame_imported"] = any(name == "pygame" or name.startswith("pygame.") for name in sys.modules)
    result["framework_modules"] = len(framework)
    result["files"] = sorted(p.name for p in save_dir.iterdir())
    print(json.dumps(result))
''')


def test_a_game_is_played_and_saved_through_the_page_with_pygame_unimportable(tmp_path):
    pytest.importorskip("aiohttp", reason="the web renderer needs aiohttp: pip install 'plyground[web]'")
    games = tmp_path / "games"
    games.mkdir()
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(games)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert not result["pygame_imported"]
    assert result["framework_modules"] > 50                       # every module of framework/ was imported
    assert result["finished"] and result["clicks"] >= 3
    assert len(result["moves"]) >= 2 * result["clicks"] - 1      # the person's moves and the bot's replies
    assert result["board"].startswith("<svg")                     # the board, drawn by the game's own view
    assert "save" in result["buttons"] and "again" in result["buttons"]
    [saved] = result["files"]
    assert saved.startswith("tictactoe-") and result["saved"].startswith(f"Saved to {saved}")
    assert len((games / saved).read_text(encoding="utf-8").strip().splitlines()) == 1   # one game, JSON lines
