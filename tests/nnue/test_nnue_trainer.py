"""The ``nnue`` trainer (plugins/trainers/nnue): self-play games and their examples, the targets, training
that resumes where it was killed, and a whole run that continues when rerun and ends in a network the
``alphabeta`` player plays."""
import json

import numpy as np
import pytest

from plyground.capabilities import endgame_oracle, nnue_learning
from plyground.errors import ModelFileError, UsageError
from plyground.options import jsonable_options
from plyground.games.checkers import CheckersGame
from plyground.games.checkers.alphabeta import nnue
from plyground.protocols import Budget
from plyground.registry import get_registry

from plyground.plugins.trainers.nnue.examples import Examples, GameRecords, examples_of, expert_examples
from plyground.plugins.trainers.nnue.learner import Learner
from plyground.plugins.trainers.nnue.selfplay import SelfPlaySetup
from plyground.plugins.trainers.nnue.trainer import GATE_SPRT, NnueTrainer


@pytest.fixture(scope="module")
def game():
    return CheckersGame()


@pytest.fixture(scope="module")
def learning(game):
    return nnue_learning(game)


def _setup(**changes):
    base = dict(game="checkers", evaluation="learned", depth=3, nodes=None, endgame="off", random_plies=(2, 6),
                max_plies=400)
    return SelfPlaySetup(**{**base, **changes})


def test_a_self_play_game_is_its_seed_s_and_records_what_happened(game):
    actor = _setup().build()
    codes, scores, first = actor.play(seed=7)
    again = actor.play(seed=7)
    assert np.array_equal(codes, again[0]) and np.array_equal(scores, again[1], equal_nan=True) and first == again[2]
    # The opening plies are random (no score), then every move was searched.
    unscored = np.flatnonzero(np.isnan(scores))
    assert 2 <= len(unscored) <= 6 and np.array_equal(unscored, np.arange(len(unscored)))
    # Replaying the codes reaches the end the result says.
    state = game.new_initial_state()
    for code in codes:
        state.apply(game.kernels().code_to_move(state, int(code)))
    assert state.is_terminal() and state.returns()[0] == first


def test_examples_are_the_quiet_searched_positions_with_the_movers_result(game, learning):
    kernels = game.kernels()
    actor = _setup().build()
    games = [actor.play(seed) for seed in (1, 2, 3)]
    records = GameRecords.empty().extend(games)
    start = kernels.state_to_pos(game.new_initial_state())
    ex = examples_of(records, kernels, start, learning)
    expected = 0
    for g, (codes, scores, first) in enumerate(games):
        state = game.new_initial_state()
        for code, score in zip(codes, scores):
            pos = kernels.state_to_pos(state)
            if not np.isnan(score) and not kernels_has_capture(pos):
                row = np.flatnonzero((ex.groups == g) & (ex.positions == pos).all(axis=1))
                assert len(row) >= 1
                mover = state.current_player()
                assert ex.results[row[0]] == ((1 + first) / 2 if mover == 0 else (1 - first) / 2)
                assert ex.scores[row[0]] == score
                expected += 1
            state.apply(kernels.code_to_move(state, int(code)))
    assert len(ex) == expected > 50
    assert not learning.quiet(ex.positions[:0]).size and learning.quiet(ex.positions).all()


def kernels_has_capture(pos):
    from plyground.games.checkers.kernels import has_capture
    return bool(has_capture(pos))


def test_targets_blend_score_and_result_and_the_database_is_exact():
    ex = Examples(np.zeros((4, 7), np.int64), np.array([0.0, 2.0, np.nan, 1.0], np.float32),
                  np.array([1.0, 0.0, 0.5, 1.0], np.float32), np.array([False, False, False, True]),
                  np.arange(4))
    slope, blend = np.log(3.0), 0.7
    t = ex.targets(slope, blend)
    sig = lambda x: 1 / (1 + np.exp(-slope * x))                      # noqa: E731
    np.testing.assert_allclose(t, [0.7 * 0.5 + 0.3, 0.7 * sig(2.0), 0.5, 1.0], rtol=1e-12)


def test_positions_the_endgame_database_holds_get_their_exact_result(game, learning, tmp_path):
    oracle = endgame_oracle(game, 3, directory=tmp_path)
    kernels = game.kernels()
    # Black: a man on 22 (from 0), White: two kings; Black to move, so it is held by the 3-piece database.
    from plyground.games.checkers.kernels import BLACK_MEN, WHITE_KINGS
    pos = np.zeros(7, np.int64)
    pos[BLACK_MEN] = 1 << 20
    pos[WHITE_KINGS] = (1 << 3) | (1 << 0)
    outcome, _ = oracle.compiled_outcome(pos, oracle.tables)
    assert outcome in (0, 1, 2)
    from plyground.plugins.trainers.nnue.examples import label_exactly
    ex = Examples(pos[None].copy(), np.array([0.0], np.float32), np.array([0.5], np.float32),
                  np.zeros(1, bool), np.zeros(1, np.int64))
    label_exactly(ex, kernels, oracle)
    assert ex.exact[0] and ex.results[0] == {0: 1.0, 1: 0.0, 2: 0.5}[outcome]


def test_expert_positions_are_labelled_by_their_results(game, learning):
    from plyground.files.bundled_data import records_file
    games, _ = learning.read_games(records_file(game, "acf", "games"), 30, log=lambda _: None)
    ex = expert_examples(games, game.kernels(), learning, skip_plies=4, every=1)
    assert len(ex) > 500 and np.isnan(ex.scores).all() and set(np.unique(ex.results)) <= {0.0, 0.5, 1.0}
    assert learning.quiet(ex.positions).all()
    # A won game's positions are 1 for the winner to move and 0 for the loser.
    g = next(i for i, x in enumerate(games) if x.returns and x.returns[0] == 1.0)
    rows = ex.groups == g
    movers = ex.positions[rows][:, 4]
    assert np.array_equal(ex.results[rows], np.where(movers == 0, 1.0, 0.0))


def test_game_records_round_trip_and_a_damaged_file_is_refused(tmp_path):
    records = GameRecords.empty().extend([(np.array([5, 6, 7]), np.array([np.nan, 0.5, -1.0]), 1.0),
                                          (np.array([8]), np.array([0.25]), 0.0)])
    records.save(tmp_path / "g.npz", {"generation": 0})
    back = GameRecords.load(tmp_path / "g.npz")
    assert back.games == 2 and back.plies == 4 and list(back.offsets) == [0, 3, 4]
    np.testing.assert_array_equal(back.scores, records.scores)
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(ModelFileError, match="bad.npz"):
        GameRecords.load(tmp_path / "bad.npz")


def _train_examples(game, learning):
    actor = _setup().build()
    records = GameRecords.empty().extend([actor.play(seed) for seed in range(6)])
    start = game.kernels().state_to_pos(game.new_initial_state())
    return examples_of(records, game.kernels(), start, learning)


def test_training_killed_after_an_epoch_resumes_to_the_same_network(game, learning, tmp_path):
    examples = _train_examples(game, learning)
    net = learning.initial(16, 8, 3)

    def learner(path, epochs):
        return Learner(learning, np.log(3.0), 0.7, 256, epochs, 3e-3, 0, path, lambda _: None)

    rows = []
    straight = learner(tmp_path / "a.npz", 3).train(net, examples, 0, rows.append)
    assert [r["epoch"] for r in rows] == [1, 2, 3] and rows[-1]["train_loss"] < rows[0]["train_loss"]

    class Killed(Exception):
        pass

    def kill_after_two(row):
        if row["epoch"] == 2:
            raise Killed
    with pytest.raises(Killed):
        learner(tmp_path / "b.npz", 3).train(net, examples, 0, kill_after_two)
    resumed_rows = []
    resumed = learner(tmp_path / "b.npz", 3).train(net, examples, 0, resumed_rows.append)
    assert [r["epoch"] for r in resumed_rows] == [3]
    for a, b in zip(straight, resumed):
        np.testing.assert_array_equal(a, b)
    # A checkpoint of another generation is not resumed.
    other = []
    learner(tmp_path / "b.npz", 3).train(net, examples, 1, other.append)
    assert [r["epoch"] for r in other] == [1, 2, 3]


def _train(cli, tmp_path, *extra):
    code, out, err = cli("train", "nnue", "--game", "checkers", "--run", tmp_path / "run", "--workers", "1",
                         "--set", "games=4", "--set", "depth=2", "--set", "epochs=1", "--set", "batch=512",
                         "--set", "match_games=2", "--set", "match_seconds=0.01", "--set", "expert_games=none",
                         "--set", "endgame=off", *extra)
    return code, out + err


def test_a_run_trains_plays_its_matches_and_continues_when_rerun_with_more_generations(cli, tmp_path):
    code, output = _train(cli, tmp_path, "--set", "generations=1")
    assert code == 0, output
    run = tmp_path / "run"
    curve = [json.loads(line) for line in (run / "curve.jsonl").read_text().splitlines()]
    assert [r["generation"] for r in curve] == [0]
    assert curve[0]["vs_today"]["wins"] + curve[0]["vs_today"]["draws"] + curve[0]["vs_today"]["losses"] == 2
    state = json.loads((run / "state.json").read_text())
    assert state["generation"] == 1 and state["phase"] == "selfplay" and state["cpu_seconds"] > 0
    # The gate is the default SPRT against the best (today's engine at first): one pair cannot decide it.
    gate = curve[0]["gate_sprt"]
    assert gate["test"] == GATE_SPRT and gate["games"] == 2 and gate["decision"] == "continue"
    assert curve[0]["accepted"] is False and state["best"] is None
    assert f"generation 0: the gate against learned: SPRT {GATE_SPRT}, at most 2 games" in output
    assert "generation 0: SPRT against learned: no decision in 2 games, so not accepted; LLR " in output
    assert (run / "matches" / "gen-000-gate" / "results.jsonl").exists() and not (run / "matches" / "gen-000").exists()

    code, output = _train(cli, tmp_path, "--set", "generations=2")
    assert code == 0, output
    curve = [json.loads(line) for line in (run / "curve.jsonl").read_text().splitlines()]
    assert [r["generation"] for r in curve] == [0, 1]
    # Generation 1: the gate against the best (still today's), a plain match against generation 0.
    assert curve[1]["gate_sprt"]["games"] == 2 and curve[1]["vs_gen0"]["draws"] is not None
    assert (run / "matches" / "gen-001-gate").is_dir() and (run / "matches" / "gen-001").is_dir()
    assert GameRecords.load(run / "games" / "gen-001.npz").games == 4
    net, meta = nnue.load(run / "nets" / "gen-001.npz")
    assert meta["generation"] == 1 and net.hidden == 32
    # The network plays.
    registry = get_registry()
    g = registry.make_game("checkers")
    player = registry.make_player(f"alphabeta:eval={run / 'nets' / 'gen-001.npz'},depth=2", g)
    assert player.choose_move(g.new_initial_state(), Budget()) in g.new_initial_state().legal_moves()

    code, output = _train(cli, tmp_path, "--set", "generations=2", "--set", "depth=3")
    assert code != 0 and "was started with depth=2, not 3" in output


def test_gate_sprt_none_keeps_the_fixed_score_gate(cli, tmp_path):
    code, output = _train(cli, tmp_path, "--set", "generations=1", "--set", "gate_sprt=none", "--set", "gate=0")
    assert code == 0, output
    run = tmp_path / "run"
    [row] = [json.loads(line) for line in (run / "curve.jsonl").read_text().splitlines()]
    assert row["gate_sprt"] is None and row["accepted"] is True        # any score is at least gate=0
    assert json.loads((run / "state.json").read_text())["best"] == 0
    assert (run / "matches" / "gen-000").is_dir() and not (run / "matches" / "gen-000-gate").exists()
    assert "SPRT" not in output


def test_a_run_started_before_the_sprt_gate_keeps_its_fixed_score_gate(game, tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    old = {name: value for name, value in jsonable_options(NnueTrainer(game, run).config).items()
           if name != "gate_sprt"}
    (run / "config.json").write_text(json.dumps(old))
    assert NnueTrainer(game, run).config["gate_sprt"] == "none"
    with pytest.raises(UsageError, match="was started with gate_sprt="):
        NnueTrainer(game, run, gate_sprt=GATE_SPRT)
    assert NnueTrainer(game, tmp_path / "new").config["gate_sprt"] == GATE_SPRT


@pytest.mark.parametrize("options, message", [
    (("--set", "random_plies_min=9", "--set", "random_plies_max=3"), "random_plies_min=9 is more than"),
    (("--set", "match_games=3"), "match_games=3 is odd"),
    (("--set", "gate_sprt=elo0=5,elo1=1"), "nnue: gate_sprt: bad SPRT 'elo0=5,elo1=1,alpha=0.05,beta=0.05': elo0 "
                                           "must be less than elo1"),
    (("--set", "gate_sprt=elo1=5"), "elo0 is missing; expected elo0=E0,elo1=E1,alpha=A,beta=B"),
    (("--set", "endgame=12"), "endgame='12' is not valid"),
])
def test_bad_options_are_refused_with_what_would_do(cli, tmp_path, options, message):
    code, output = _train(cli, tmp_path, *options)
    assert code != 0 and message in output
    assert not (tmp_path / "run" / "state.json").exists()


def test_a_game_without_an_nnue_is_refused(cli, tmp_path):
    code, out, err = cli("train", "nnue", "--game", "tictactoe", "--run", tmp_path / "r")
    assert code != 0 and "no NNUE evaluation" in out + err


def test_a_run_may_start_from_a_network_and_compare_with_a_pinned_one(cli, tmp_path):
    """first_eval: generation 0's self-play by a given network (here the bundled one, pinned as a file);
    baseline: today's engine in the matches and the curve, named 'today'.  The new network has three buckets,
    which the matches' engines play."""
    import shutil
    from plyground.players.alphabeta.player import load_evaluation
    pinned = tmp_path / "pinned.npz"
    shutil.copy(load_evaluation(CheckersGame(), "nnue")[1]["path"], pinned)
    code, output = _train(cli, tmp_path, "--set", "generations=1", "--set", f"first_eval={pinned}",
                          "--set", f"baseline={pinned}", "--set", "gate_sprt=none", "--set", "buckets=3")
    assert code == 0, output
    assert "self-play of 4 games with eval=pinned.npz" in output
    assert nnue.load(tmp_path / "run" / "nets" / "gen-000.npz")[0].buckets == 3
    row = json.loads((tmp_path / "run" / "curve.jsonl").read_text().splitlines()[-1])
    assert row["vs_today"] is not None and row["best_before"] == "today"
    code, output = _train(cli, tmp_path / "other", "--set", "first_eval=/no/such/net.npz")
    assert code == 2 and "nnue: first_eval='/no/such/net.npz'" in output


def test_a_run_may_take_generation_0_s_games_from_another_run_and_gets_the_games_it_would_have_played(cli, tmp_path):
    """first_games: networks of another size learn from the same games; the games after those taken are the
    ones the run would have played itself (a game's seed is its index)."""
    code, output = _train(cli, tmp_path / "a", "--set", "generations=1", "--set", "gate_sprt=none")
    assert code == 0, output
    source = tmp_path / "a" / "run" / "games" / "gen-000.npz"
    code, output = _train(cli, tmp_path / "b", "--set", "generations=1", "--set", "gate_sprt=none", "--set", "games=6",
                          "--set", "hidden=8", "--set", "buckets=2", "--set", f"first_games={source}")
    assert code == 0, output
    assert "generation 0: 4 games (" in output and f"taken from {source}" in output
    assert "self-play of 6 games" in output and "(4 played already)" in output
    code, output = _train(cli, tmp_path / "c", "--set", "generations=1", "--set", "gate_sprt=none", "--set", "games=6")
    assert code == 0, output
    taken = GameRecords.load(tmp_path / "b" / "run" / "games" / "gen-000.npz")
    played = GameRecords.load(tmp_path / "c" / "run" / "games" / "gen-000.npz")
    assert taken.games == played.games == 6
    for a, b in zip((taken.codes, taken.scores, taken.offsets, taken.first_returns),
                    (played.codes, played.scores, played.offsets, played.first_returns)):
        np.testing.assert_array_equal(a, b)
    # games played otherwise are refused, naming what differs
    code, output = _train(cli, tmp_path / "d", "--set", "depth=3", "--set", f"first_games={source}")
    assert code == 2 and f"nnue: first_games='{source}' holds games of generation 0, evaluation 'learned', depth 2" \
        in output and "this run plays generation 0, evaluation 'learned', depth 3" in output
    code, output = _train(cli, tmp_path / "e", "--set", f"first_games={tmp_path / 'none.npz'}")
    assert code == 2 and "does not exist" in output
