"""The trainer's roles on their own: search settings, gate, pipeline."""
import dataclasses

from plyground.games.tictactoe import TicTacToe
from plyground.plugins.trainers.alphazero.gate import Gate, Tally
from plyground.plugins.trainers.alphazero.pipeline import Phase, Pipeline, Step
from plyground.players.alphazero.player import AlphaZeroPlayer
from plyground.plugins.trainers.alphazero.playbook import Playbook
from plyground.plugins.trainers.alphazero.rundir import RunDirectory
from plyground.players.search.settings import SearchSettings
from plyground.plugins.trainers.alphazero.trainer import AlphaZeroTrainer
from plyground.protocols import GameRecord

from aztestgames import tiny_model


def test_player_and_trainer_read_one_declaration_of_the_search(tmp_path):
    game = TicTacToe()
    player = AlphaZeroPlayer(game, model=tiny_model(game, tmp_path / "m.npz"), simulations=12, c_puct=2.0,
                             search="gumbel", gumbel_actions=4)
    assert player.settings == SearchSettings(simulations=12, c_puct=2.0, search="gumbel", gumbel_actions=4)
    trainer = AlphaZeroTrainer(game, tmp_path / "run", simulations=30, comparison_simulations=9, workers=1)
    playbook = Playbook(game, trainer.config)
    assert playbook.search.simulations == 30 and playbook.search.dirichlet_epsilon == 0.25
    assert playbook.match_search == dataclasses.replace(playbook.search, simulations=9, dirichlet_epsilon=0.0)
    assert playbook.search.gumbel_c_scale == 0.1          # the trainer's default, not the player's


def saved(result: str, new_first: bool = True, finished: bool = True) -> dict:
    returns = {"1-0": (1.0, -1.0), "0-1": (-1.0, 1.0), "1/2-1/2": (0.0, 0.0)}[result]
    record = GameRecord("tictactoe", ("a", "b"), "", ["a1"], returns if finished else (0.0, 0.0),
                        "" if finished else "the player raised", finished)
    return {"record": record, "new_first": new_first}


def test_gate_counts_unfinished_games_apart_and_applies_its_rule():
    games = [saved("1-0"), saved("1/2-1/2", new_first=False), saved("1-0", finished=False), saved("0-1", False)]
    tally = Tally.of(games)
    assert (tally.score.wins, tally.score.draws, tally.score.losses, tally.unfinished) == (2, 1, 0, 1)
    assert tally.first_failure == "the player raised"
    assert Gate(50.0).passes(50.0) and not Gate(50.0, strict=True).passes(50.0)
    assert Gate(50.0, strict=True).passes(50.1)
    verdict = Gate(55.0).judge(games, planned=2)          # 1 W 1 D: 75%
    assert verdict.accepted and verdict.percent == 75.0
    assert Gate(55.0).judge([], planned=0).accepted           # no comparison: always accepted
    none_finished = Gate(0.0).judge([saved("1-0", finished=False)], planned=1)
    assert not none_finished.accepted and none_finished.percent is None


def test_pipeline_resumes_at_the_phase_state_json_names(tmp_path):
    rundir = RunDirectory(tmp_path / "run", TicTacToe())
    rundir.prepare()
    calls = []

    def phase(name):
        def run(state):
            calls.append((state["iteration"], name))
            return state
        return Phase(name, run)

    steps = [Step("once", lambda s: bool(s.get("once")), lambda s: calls.append("once") or {**s, "once": True})]
    # Phases named as a run's are (state.json's reader refuses other names, and a state without its game).
    pipeline = Pipeline(rundir, steps, [phase("selfplay"), phase("train"), phase("compare")], iterations=2)
    state = pipeline.run({"game": "tictactoe", "iteration": 1, "phase": "train"})
    assert calls == ["once", (1, "train"), (1, "compare"), (2, "selfplay"), (2, "train"), (2, "compare")]
    assert state == {"game": "tictactoe", "iteration": 3, "phase": "selfplay", "once": True}
    assert {k: v for k, v in rundir.read_state().items() if k != "version"} == state
    calls.clear()
    assert pipeline.run(state) == state and calls == []
    rundir.release()
