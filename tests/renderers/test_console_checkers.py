"""The console renderer plays a whole game of checkers through stdin, wrong inputs included."""
from __future__ import annotations

import io
import re
import sys

from plyground.cli import main
from plyground.play.match import play_game
from plyground.protocols import Budget

from renderer_helpers import ensure_pygame_plugin

CAPTURED_SHIFT = 10


def captures(move: int) -> int:
    return bin(move >> CAPTURED_SHIFT).count("1")


def greedy(state):
    """The human's policy: the move taking the most pieces (the first such)."""
    return max(state.legal_moves(), key=captures)


def backward_try(state):
    """Text of a backward step for a Black man that has a forward move, or None."""
    legal = state.legal_moves()
    for move in legal:
        frm, to = move & 31, (move >> 5) & 31
        if captures(move) == 0 and to // 4 == frm // 4 + 1:  # Black men move to higher rows
            for back in range(32):
                if back // 4 == frm // 4 - 1 and abs((back % 4) - (frm % 4)) <= 1 and _adjacent(frm, back):
                    return f"{frm + 1}-{back + 1}"
    return None


def _adjacent(a: int, b: int) -> bool:
    ra, rb = a // 4, b // 4
    ca, cb = 2 * (a % 4) + (1 if ra % 2 == 0 else 0), 2 * (b % 4) + (1 if rb % 2 == 0 else 0)
    return abs(ra - rb) == 1 and abs(ca - cb) == 1


def non_capture_try(state):
    """Text moving a Black piece that cannot capture while a capture is compulsory, or None."""
    capturers = {m & 31 for m in state.legal_moves()}
    text = state.to_text()
    black = [part for part in text.split(":") if part.startswith("B") and len(part) > 1 and part[1] != ":"]
    for item in black[-1][1:].split(",") if black else []:
        square = int(item.lstrip("K")) - 1
        if square not in capturers and square + 4 < 32:
            return f"{square + 1}-{square + 5}"
    return None


def script(registry, seed: int):
    """stdin for Black (greedy, with mistakes and commands woven in) against random:seed, and the moves."""
    game = registry.make_game("checkers")
    bot = registry.make_player(f"random:seed={seed}", game)
    bot.reset(None)  # what play_game does when it has no seed
    state = game.new_initial_state()
    lines = ["help", "undo", "moves", "zz", ""]
    moves: list[str] = []
    done = set()
    while not state.is_terminal():
        if state.current_player() == 0:
            capture_turn = captures(state.legal_moves()[0]) > 0
            if capture_turn and "capture" not in done and non_capture_try(state):
                lines.append(non_capture_try(state))
                done.add("capture")
            if not capture_turn and "backward" not in done and backward_try(state):
                lines.append(backward_try(state))
                done.add("backward")
            if state.ply == 6 and "undo" not in done:
                lines += ["undo", "board"]  # take back our move and the reply: both are played again
                state.undo(), state.undo(), moves.pop(), moves.pop()
                bot.reset(None)
                done.add("undo")
            move = greedy(state)
            lines.append(state.move_to_text(move))
        else:
            move = bot.choose_move(state.clone(), Budget())
        moves.append(state.move_to_text(move))
        state.apply(move)
    assert done == {"capture", "backward", "undo"}
    return lines, moves


def test_full_checkers_game_through_stdin_with_mistakes():
    registry = ensure_pygame_plugin()
    lines, expected = script(registry, seed=3)
    game = registry.make_game("checkers")
    renderer = registry.make_renderer("console", game)  # colour "auto": off, since the output is no terminal
    out = io.StringIO()
    renderer.stdin, renderer.out = io.StringIO("\n".join(lines) + "\n"), out
    players = [registry.make_player("human", game), registry.make_player("random:seed=3", game)]
    record = play_game(game, players, names=("human", "random:seed=3"), renderer=renderer)
    text = out.getvalue()
    assert record.moves == expected and record.finished
    assert "Commands at the move prompt" in text and "English checkers" in text   # help with the rules
    assert "nothing to take back yet" in text
    assert "Legal moves (7): 9-13, 9-14, 10-14, 10-15, 11-15, 11-16, 12-16" in text
    assert "cannot read move 'zz'" in text
    assert "a capture is available, you must capture" in text
    assert "a man moves forward only" in text
    assert not re.search(r"not a legal move: \S+ is not a legal move", text)   # each refusal said once
    assert text.count("Black move (or 'help'):") > len(expected) // 2      # re-prompted after each mistake
    assert " 8     b     b     b     b  8        1     2     3     4" in text  # coordinates and square numbers
    assert "Last move:" in text and "Game over:" in text
    assert "\x1b[" not in text


def test_plyground_play_checkers_through_stdin_in_process(monkeypatch, capsys, tmp_path):
    registry = ensure_pygame_plugin()
    lines, expected = script(registry, seed=5)
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    save = tmp_path / "game.pdn"
    try:
        main(["play", "--game", "checkers", "--white", "random:seed=5", "--save", str(save)])
    except SystemExit as exc:
        assert exc.code in (0, None)
    out = capsys.readouterr().out
    assert "Game over:" in out and f"saved to {save}" in out
    pdn = save.read_text()
    assert expected[0] in pdn and expected[-1] in pdn


def test_colour_on_request():
    registry = ensure_pygame_plugin()
    game = registry.make_game("checkers")
    renderer = registry.make_renderer("console:color=always", game)
    renderer.stdin, renderer.out = io.StringIO("quit\n"), io.StringIO()
    play_game(game, [registry.make_player("human", game), registry.make_player("random", game)], renderer=renderer)
    assert "\x1b[" in renderer.out.getvalue()
