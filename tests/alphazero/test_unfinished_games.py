"""Unfinished comparison and evaluation games (a crashed player) are counted apart, never as draws.

Counting one as a draw pulls the score towards 50%: with a low replace_threshold a
candidate whose player crashes in every game would become the best network.
"""
import json

from plyground.files.storage import read_json_lines
import pytest

from plyground.games.tictactoe import TicTacToe
from plyground.hookspecs import hookimpl
from plyground.plugins.trainers.alphazero import AlphaZeroTrainer
from plyground.plugins.trainers.alphazero.playbook import Playbook
from plyground.protocols import Player

from plugin_helpers import registered

TINY = {"network": "mlp:hidden=8,layers=1", "selfplay_games": 3, "simulations": 8, "epochs": 1,
        "batch_size": 8, "iterations": 1, "workers": 1, "plots": False, "seed": 5}

O = 1    # tic-tac-toe's second player


class FailsAs(Player):
    """A real player that raises whenever it has to move for one of ``sides`` (a bug in it, say)."""

    name = "fails-as"

    def __init__(self, inner: Player, sides: tuple[int, ...]) -> None:
        super().__init__(inner.game)
        self.inner, self.sides = inner, sides

    def reset(self, seed=None):
        self.inner.reset(seed)

    def observe_move(self, state, move):
        self.inner.observe_move(state, move)

    def choose_move(self, state, budget):
        if state.current_player() in self.sides:
            raise RuntimeError("the candidate's player failed")
        return self.inner.choose_move(state, budget)

    def close(self):
        self.inner.close()


def trainer_whose_candidate_fails(sides: tuple[int, ...]) -> type[AlphaZeroTrainer]:
    class BrokenPlaybook(Playbook):
        def match_player(self, network, temperature_plies):
            player = super().match_player(network, temperature_plies)
            # The network trained this iteration (checkpoints of training are saved with role "candidate").
            return FailsAs(player, sides) if network.metadata.get("role") == "candidate" else player

    class BrokenCandidate(AlphaZeroTrainer):
        playbook_class = BrokenPlaybook
    return BrokenCandidate


def run(trainer_cls, run_dir, **options):
    trainer = trainer_cls(TicTacToe(), run_dir, **{**TINY, **options})
    lines = []
    trainer.log = lines.append
    trainer.run()
    metrics = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    return metrics[-1], lines


def saved_games(path):
    return read_json_lines(path)


def finished_draws(games):
    return sum(g["record"]["finished"] and g["record"]["result"] == "1/2-1/2" for g in games)


def test_an_unfinished_comparison_game_is_counted_apart(tmp_path):
    # The candidate moves as O in the odd-numbered games: game 1 of 3 ends unfinished.
    row, lines = run(trainer_whose_candidate_fails((O,)), tmp_path / "run", comparison_games=3)
    games = saved_games(tmp_path / "run" / "comparison" / "iter-0001.jsonl")
    assert [g["record"]["finished"] for g in games] == [True, False, True]
    gate = row["gate"]
    assert gate["unfinished"] == 1
    assert gate["wins"] + gate["draws"] + gate["losses"] == 2
    assert gate["draws"] == finished_draws(games)
    assert any("comparison 3/3: new network" in line and "1 unfinished (not counted)" in line for line in lines)
    verdict = next(line for line in lines if "new network accepted" in line or "new network rejected" in line)
    assert "1 unfinished game(s) not counted; first unfinished game: iter-0001 (new) (O) failed: " \
           "RuntimeError: the candidate's player failed" in verdict


def test_a_gate_whose_games_all_went_unfinished_keeps_the_best_network(tmp_path):
    # replace_threshold=0 accepts any score, even 0%: only the missing score may stop the candidate.
    row, lines = run(trainer_whose_candidate_fails((0, 1)), tmp_path / "run", comparison_games=2,
                     replace_threshold=0.0, plots=True)
    gate = row["gate"]
    assert (gate["wins"], gate["draws"], gate["losses"], gate["unfinished"]) == (0, 0, 0, 2)
    assert gate["score"] is None
    assert row["accepted"] is False and row["best_iteration"] == 0
    assert (tmp_path / "run" / "best.npz").read_bytes() == \
        (tmp_path / "run" / "checkpoints" / "iter-0000.npz").read_bytes()
    assert (tmp_path / "run" / "plots" / "gate.png").is_file()     # a gate without a score is left out
    assert any("new network rejected: none of its 2 comparison games finished" in line
               and "no score to judge it by" in line for line in lines), lines


class CrashesAsO(Player):
    name = "crashes-as-o"
    description = "Plays the first legal move as X and raises as O (tests only)."

    def choose_move(self, state, budget):
        if state.current_player() == O:
            raise RuntimeError("this player always fails as O")
        return state.legal_moves()[0]


class _Plugin:
    @hookimpl
    def register_players(self):
        return [CrashesAsO]


@pytest.fixture
def crasher():
    """Register the crashing player for one test (in this process only: the test plays with workers=1)."""
    with registered(_Plugin(), "crashing-players"):
        yield


def test_unfinished_evaluation_games_are_counted_apart_through_the_cli(cli, crasher, tmp_path):
    run_dir = tmp_path / "run"
    options = {**TINY, "comparison_games": 0, "evaluation_games": 3, "evaluation_opponent": "crashes-as-o"}
    sets = [arg for key, value in options.items() for arg in ("--set", f"{key}={str(value).lower()}")]
    code, out, err = cli("train", "alphazero", "--game", "tictactoe", "--run", str(run_dir), *sets)
    assert code == 0, err
    # The network moves first (as X) in the even-numbered games, so the opponent fails in games 0 and 2.
    games = saved_games(run_dir / "evaluation" / "iter-0001.jsonl")
    assert [g["record"]["finished"] for g in games] == [False, True, False]
    row = json.loads((run_dir / "metrics.jsonl").read_text().splitlines()[-1])
    evaluation = row["evaluation"]
    assert evaluation["unfinished"] == 2
    assert evaluation["wins"] + evaluation["draws"] + evaluation["losses"] == 1
    assert evaluation["draws"] == finished_draws(games)
    assert "evaluation vs crashes-as-o: " in err and "2 unfinished (not counted)" in err
    assert "this player always fails as O" in err
