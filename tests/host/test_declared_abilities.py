"""The CLI uses what renderers and trainers declare: a renderer's menu and game loop, a trainer's log."""
from __future__ import annotations

from pathlib import Path

import pytest

from plyground.hookspecs import hookimpl
from plyground.protocols import Renderer, Trainer

from plugin_helpers import registered

CALLS: list[tuple] = []


class LoopRenderer(Renderer):
    name = "loop-test"
    description = "Runs games itself and has a menu (test double)."
    interactive = False
    has_menu = True
    runs_games = True

    def run_menu(self, registry):
        CALLS.append(("menu", sorted(registry.names("games"))[:1]))

    def play(self, session):
        CALLS.append(("play", session.names))
        return session.play()


class PlainRenderer(Renderer):
    name = "plain-test"
    description = "Neither a menu nor its own game loop (test double)."
    interactive = False

    def show(self, state, last_move):
        CALLS.append(("show", last_move))


class TalkingTrainer(Trainer):
    name = "talking-test"
    description = "Logs two lines and trains nothing (test double)."

    def run(self) -> Path:
        self.log("first line")
        self.log("second line")
        artifact = self.run_dir / "nothing.txt"
        artifact.write_text("trained\n")
        return artifact


class Plugin:
    @hookimpl
    def register_renderers(self):
        return [LoopRenderer, PlainRenderer]

    @hookimpl
    def register_trainers(self):
        return [TalkingTrainer]


@pytest.fixture(autouse=True)
def doubles():
    CALLS.clear()
    with registered(Plugin(), "abilities-test"):
        yield


def test_a_renderer_that_runs_games_plays_them_itself(cli):
    code, _, err = cli("play", "--game", "tictactoe", "--renderer", "loop-test", "--black", "random:seed=1",
                       "--white", "random:seed=2")
    assert code == 0, err
    assert CALLS == [("play", ("random:seed=1", "random:seed=2"))]


def test_a_renderer_with_a_menu_gets_it_when_nothing_is_chosen(cli):
    code, _, err = cli("play", "--renderer", "loop-test")
    assert code == 0, err
    assert CALLS == [("menu", ["checkers"])]


def test_other_renderers_are_driven_by_the_match_runner(cli):
    code, _, err = cli("play", "--game", "tictactoe", "--renderer", "plain-test", "--black", "random",
                       "--white", "random")
    assert code == 0, err
    assert CALLS[0] == ("show", None) and len(CALLS) >= 6      # the start, then every move


def test_the_train_command_routes_the_trainers_log(cli, tmp_path):
    code, _, err = cli("train", "talking-test", "--game", "tictactoe", "--run", tmp_path / "loud")
    assert code == 0, err
    assert "first line\nsecond line\n" in err
    code, out, err = cli("train", "talking-test", "--game", "tictactoe", "--run", tmp_path / "quiet", "--quiet")
    assert code == 0 and "first line" not in err and "trained: " in out


def test_a_trainer_logs_to_stderr_until_told_otherwise(tmp_path, capsys):
    from plyground.games.tictactoe import TicTacToe
    trainer = TalkingTrainer(TicTacToe(), tmp_path)
    trainer.run()
    assert capsys.readouterr().err == "first line\nsecond line\n"
    lines = []
    trainer.set_log(lines.append)
    trainer.run()
    assert lines == ["first line", "second line"] and capsys.readouterr().err == ""
