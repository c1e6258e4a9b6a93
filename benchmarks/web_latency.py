"""How fast the web renderer's page follows the game: a person's click reaching the game, and a bot's reply shown
on the page after the bot chose it (issue #56: within 100 ms), over 200 moves in headless Chromium.

    python benchmarks/web_latency.py                    # 200 bot replies, checkers, alphabeta:depth=2
    python benchmarks/web_latency.py --moves 50 --bot random

The person's moves are real clicks (Selenium pointer events) on the cells of a seeded random legal move; games
follow one another on the same page until enough bot replies were seen.  Times are wall-clock times of this
machine, read in Python (time.time) and in the page (performance.timeOrigin + performance.now()):

- click -> game: the pointer-down of a move's last click, to the game's thread being handed the move;
- choice -> page: the bot's choose_move returning, to the page's move list holding the reply (a MutationObserver),
  and to the next animation frame after it (the picture on the screen).

Needs chromium and chromium-driver (apt-get) and Selenium (the dev extra), and aiohttp (the web extra).
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from plyground.boardview.views import view_for
from plyground.plugins.web.browser import PageDriver, start_browser, until
from plyground.plugins.web.renderer import WebRenderer
from plyground.registry import get_registry
from plyground.play.session import GameSession

#: Injected into the page: when the move list changes, the time and the number of moves it shows (DOM updated),
#: then the time of the next animation frame; and the time of every pointer-down on the board.
WATCH = """
window.__seen = []; window.__clicks = [];
const now = () => performance.timeOrigin + performance.now();
new MutationObserver(() => {
  const count = document.querySelectorAll('#moves .move').length, dom = now();
  requestAnimationFrame(() => window.__seen.push([count, dom, now()]));
}).observe(document.getElementById('moves'), {childList: true, subtree: true});
document.getElementById('board').addEventListener('pointerdown', () => window.__clicks.push(now()), true);
"""


def _percentiles(values: list[float]) -> str:
    values = sorted(values)
    pick = lambda q: values[min(len(values) - 1, int(q * len(values)))]  # noqa: E731
    return (f"n={len(values)}  median {statistics.median(values):.1f}  p90 {pick(0.90):.1f}  p99 {pick(0.99):.1f}  "
            f"max {values[-1]:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=200, help="bot replies to measure (default 200)")
    parser.add_argument("--bot", default="alphabeta:depth=2", help="the bot's spec (default alphabeta:depth=2)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    registry = get_registry()
    game = registry.make_game("checkers")
    view = view_for(game)
    rng = random.Random(args.seed)
    chosen: list[float] = []         # when the bot's choose_move returned, in order
    answered: list[float] = []       # when the game's thread was handed the person's move
    to_page: list[float] = []
    to_frame: list[float] = []
    click_to_game: list[float] = []
    print(f"load before: {os.getloadavg()[0]:.2f} (1-minute average, {os.cpu_count()} CPUs)", flush=True)
    with tempfile.TemporaryDirectory(prefix="plyground-web-latency-") as saves:
        renderer = WebRenderer(open_browser=False, bot_delay=0.0, save_dir=Path(saves))
        driver = start_browser()
        page = None
        games = 0
        try:
            while len(to_page) < args.moves:
                games += 1
                bot = registry.make_player(args.bot, game)
                choose = bot.choose_move

                def timed(state, budget, choose=choose):
                    move = choose(state, budget)
                    chosen.append(time.time())
                    return move
                bot.choose_move = timed
                human = registry.make_player("human", game)
                session = GameSession(game, [human, bot], ("human", args.bot))
                chosen.clear()
                answered.clear()
                renderer.done.clear()
                thread = threading.Thread(target=renderer.play, args=(session,), daemon=True)
                thread.start()
                until(lambda: renderer.game_thread is not None and renderer.game_thread.session is session
                      and renderer.screen is not None and renderer.screen.link is renderer.game_thread.link,
                      "the game's screen")
                link = renderer.screen.link
                answer = link.answer

                def told(choice, answer=answer):
                    answered.append(time.time())
                    answer(choice)
                link.answer = told
                if page is None:
                    page = PageDriver(driver, renderer).open()
                    until(lambda: page.script("return !!document.getElementById('moves');"), "the page")
                    page.script(WATCH)
                until(lambda: page.moves() == [], "the new game on the page")
                page.script("window.__seen = []; window.__clicks = [];")
                while len(to_page) < args.moves:
                    # Waits look at the server's side; the page is asked only once its times are written, so that
                    # no WebDriver call competes with the page for the CPU while it takes the reply.
                    until(lambda: renderer.screen.over or renderer.screen.input is not None, "the person's turn")
                    if renderer.screen.over:
                        break
                    with renderer.lock:
                        state = renderer.screen.state.clone()
                        made = len(renderer.screen.moves)
                    text = state.move_to_text(rng.choice(state.legal_moves()))
                    cells = view.move_cells(state, text)
                    replies = len(chosen)
                    for cell in cells:
                        page.click_cell(cell)
                    until(lambda: len(answered) >= 1 and (len(chosen) > replies or renderer.screen.over),
                          "the move to reach the game")
                    clicks = page.script("return window.__clicks;")
                    click_to_game.append((answered[-1] * 1000) - clicks[-1])
                    answered.clear()
                    page.script("window.__clicks = [];")
                    if renderer.screen.over:
                        break
                    # the bot's reply: the (made + 2)th move on the page
                    seen = until(lambda: [s for s in page.script("return window.__seen;") if s[0] >= made + 2],
                                 "the bot's reply on the page", every=0.1)
                    to_page.append(seen[0][1] - chosen[-1] * 1000)
                    to_frame.append(seen[0][2] - chosen[-1] * 1000)
                    print(f"\r{len(to_page)}/{args.moves} replies measured (game {games})", end="", flush=True)
                page.button("leave")
                thread.join(30)
                session.close_players()
        finally:
            driver.quit()
            renderer.close()
    print()
    print(f"load after: {os.getloadavg()[0]:.2f}; {games} games, {len(to_page)} bot replies ({args.bot})")
    print(f"click -> game:                       {_percentiles(click_to_game)}")
    print(f"bot's choice -> page's move list:    {_percentiles(to_page)}")
    print(f"bot's choice -> next frame drawn:    {_percentiles(to_frame)}")
    worst = max(to_frame)
    print(f"within 100 ms of the bot's choice: {'yes' if worst < 100 else 'NO'} (worst {worst:.1f} ms)")
    sys.exit(0 if worst < 100 else 1)


if __name__ == "__main__":
    main()
