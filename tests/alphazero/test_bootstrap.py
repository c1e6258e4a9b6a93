"""Teacher bootstrap: positions from real games, labels, the fitted value scale, resumable labelling, and
the trainer's bootstrap phase end to end (checkers, ACF games, alpha-beta teacher)."""
import json

import numpy as np
import pytest

from plyground.cli import main
from plyground.plugins.trainers.alphazero import bootstrap
from plyground.players.alphazero.networks import load_model
from plyground.plugins.trainers.alphazero.rundir import RunDirectory
from plyground.registry import get_registry


@pytest.fixture(scope="module")
def few_games(acf_pdn, tmp_path_factory):
    """The first 8 games of the ACF archive as their own PDN file."""
    text = acf_pdn.read_text(encoding="utf-8")
    starts = [i for i in range(len(text)) if text.startswith("[Event", i)][:9]
    path = tmp_path_factory.mktemp("pdn") / "eight.pdn"
    path.write_text(text[:starts[8]], encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def checkers():
    return get_registry().make_game("checkers")


def settings(path, **changes):
    base = dict(games=path, teacher="alphabeta:eval=learned,depth=2", positions=60, epochs=2, seed=3)
    return bootstrap.BootstrapSettings(**{**base, **changes})


def test_positions_are_distinct_playable_and_siblings_leave_the_expert_line(checkers, few_games):
    positions = list(bootstrap.expert_positions(checkers, few_games, seed=1, siblings=True))
    keys = [(p.state.key(), p.state.current_player()) for p in positions]
    assert len(keys) == len(set(keys))
    assert all(len(p.state.legal_moves()) > 1 and not p.state.is_terminal() for p in positions)
    experts = [p for p in positions if p.expert_move is not None]
    siblings = [p for p in positions if p.expert_move is None]
    assert experts and siblings
    assert all(p.expert_move in p.state.legal_moves() for p in experts)
    # a sibling comes right after its expert position: one move away, but not the expert's move
    for before, after in zip(positions, positions[1:]):
        if after.expert_move is None:
            reached = []
            for move in before.state.legal_moves():
                s = before.state.clone()
                s.apply(move)
                if s.key() == after.state.key():
                    reached.append(move)
            assert reached and before.expert_move not in reached
            assert after.outcome == -before.outcome or np.isnan(after.outcome)
    # the first game is a draw: its positions carry outcome 0 for either side
    ordered = list(bootstrap.expert_positions(checkers, few_games, seed=1, siblings=False))
    assert {p.outcome for p in ordered} <= {-1.0, 0.0, 1.0}


def test_fit_scale_recovers_the_scale_that_generated_the_outcomes():
    rng = np.random.default_rng(0)
    values = rng.normal(0, 60, 20_000)
    expected = np.tanh(values / 150.0)
    outcomes = np.where(rng.random(values.size) < (1 + expected) / 2, 1.0, -1.0).astype(np.float32)
    outcomes[::10] = np.nan                    # unknown results are left out
    assert 120 < bootstrap.fit_scale(values, outcomes) < 190


def test_examples_mix_expert_and_teacher_moves_and_the_outcome():
    labels = {"observations": np.zeros((3, 5, 8, 8), np.float32),
              "expert_action": np.array([4, 7, -1], np.int32), "teacher_action": np.array([4, 9, 2], np.int32),
              "teacher_value": np.array([100.0, -50.0, 0.0]), "outcome": np.array([1.0, np.nan, -1.0], np.float32),
              "player": np.array([0, 1, 0], np.int8)}
    data = bootstrap.build_examples(labels, scale=100.0, policy="both", outcome_weight=0.25)
    dense = data.dense_policies(np.arange(3), 16)
    assert dense[0, 4] == 1.0                          # expert and teacher agree
    assert dense[1, 7] == dense[1, 9] == 0.5           # they differ: half each
    assert dense[2, 2] == 1.0                          # a sibling has the teacher's move only
    assert data.values[0] == pytest.approx(0.75 * np.tanh(1.0) + 0.25)
    assert data.values[1] == pytest.approx(np.tanh(-0.5))   # unknown outcome: the teacher alone
    assert data.values[2] == pytest.approx(-0.25)
    expert_only = bootstrap.build_examples(labels, 100.0, "expert", 0.0).dense_policies(np.arange(3), 16)
    assert expert_only[1, 7] == 1.0 and expert_only[2, 2] == 1.0


def test_labelling_resumes_after_the_last_finished_chunk(checkers, few_games, tmp_path):
    lines = []
    bootstrap.Labeller(checkers, tmp_path / "a", settings(few_games, positions=25), lines.append,
                       chunk_positions=10).run()
    first = bootstrap.read_labels(tmp_path / "a")
    assert len(first["teacher_value"]) == 25
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == [
        "labels-00000.npz", "labels-00001.npz", "labels-00002.npz"]
    # a kill during the second chunk: only the first is on disk; the rerun labels the same positions
    for name in ("labels-00001.npz", "labels-00002.npz"):
        (tmp_path / "a" / name).unlink()
    bootstrap.Labeller(checkers, tmp_path / "a", settings(few_games, positions=25), lines.append,
                       chunk_positions=10).run()
    again = bootstrap.read_labels(tmp_path / "a")
    for name in first:
        np.testing.assert_array_equal(first[name], again[name])
    assert any("resumes after 10 positions" in line for line in lines)
    # the teacher's labels: its move is legal (an action of the position) and captures are forced
    assert (first["teacher_action"] >= 0).all()
    assert np.abs(first["teacher_value"]).max() > 0


def test_a_teacher_without_a_search_value_is_refused(checkers, few_games, tmp_path):
    from plyground.errors import UsageError
    labeller = bootstrap.Labeller(checkers, tmp_path, settings(few_games, teacher="random"), print)
    with pytest.raises(UsageError, match="reports no search value"):
        labeller.run()


def test_a_missing_games_file_is_one_clear_message(checkers, tmp_path):
    from plyground.errors import UsageError
    with pytest.raises(UsageError, match=r"bootstrap_games '.*nothing.pdn' is neither an existing file nor the name of games "
                                         r"bundled with checkers \(acf\)"):
        list(bootstrap.expert_positions(checkers, tmp_path / "nothing.pdn", 0, True))


def test_the_trainer_bootstraps_the_initial_network_once(few_games, tmp_path, capsys):
    run = tmp_path / "run"
    args = ["train", "alphazero", "--game", "checkers", "--run", str(run), "--quiet",
            "--set", "network=mlp:hidden=32,layers=1", "--set", f"bootstrap_games={few_games}",
            "--set", "bootstrap_teacher=alphabeta:eval=learned,depth=2", "--set", "bootstrap_positions=120",
            "--set", "bootstrap_epochs=3", "--set", "batch_size=16", "--set", "iterations=1",
            "--set", "selfplay_games=2", "--set", "simulations=4", "--set", "comparison_games=0",
            "--set", "max_plies=20", "--set", "plots=false"]
    main(args)
    state = RunDirectory(run, get_registry().make_game("checkers")).read_state()
    assert state["bootstrapped"] is True and state["iteration"] == 2
    initial = load_model(run / "checkpoints" / "iter-0000.npz", get_registry().make_game("checkers"))
    assert initial.metadata["role"] == "bootstrap"
    losses = [e["loss"] for e in initial.metadata["epoch_losses"]]
    assert len(losses) == 3 and losses[-1] < losses[0]
    summary = json.loads((run / "bootstrap" / "summary.json").read_text())
    assert summary["positions"] == 120 and summary["scale"] > 0
    # extending the run does not bootstrap again
    stamp = (run / "checkpoints" / "iter-0000.npz").stat().st_mtime_ns
    main(args[:-8] + ["--set", "iterations=2", "--set", "selfplay_games=2", "--set", "simulations=4",
                      "--set", "comparison_games=0"])
    assert (run / "checkpoints" / "iter-0000.npz").stat().st_mtime_ns == stamp
    assert "bootstrap:" not in capsys.readouterr().err.split("resuming")[-1]


def test_labelling_stops_between_chunks_at_the_time_limit(checkers, few_games, tmp_path):
    """Issue #73: `--minutes 3` ran on for 8m32s in the bootstrap, whose labelling did not keep the limit."""
    from plyground.util.timelimit import TimeLimit, TimeUp
    labeller = bootstrap.Labeller(checkers, tmp_path, settings(few_games, positions=25), print, chunk_positions=10)
    with pytest.raises(TimeUp, match="stopped before the next chunk of bootstrap labels"):
        labeller.run(TimeLimit(0.0001))         # the first chunk is labelled (every chunk moves on), no more
    assert [p.name for p in labeller.chunk_paths()] == ["labels-00000.npz"]


class _SlowStart:
    """The real teacher on a clock of its own: its first search (warm-up or move) costs 1000 s, as compiling
    a search does on a first run; every move after it, 1 s."""

    def __init__(self, teacher, clock):
        self.teacher, self.clock, self.started = teacher, clock, False

    def _search(self):
        self.clock.now += 1.0 if self.started else 1000.0
        self.started = True

    def warm_up(self):
        if not self.started:
            self._search()
        self.teacher.warm_up()

    def choose_move(self, state, budget):
        self._search()
        return self.teacher.choose_move(state, budget)

    def __getattr__(self, name):
        return getattr(self.teacher, name)


def test_the_first_eta_is_the_labelling_rate_not_the_teachers_start_up(checkers, few_games, tmp_path, monkeypatch):
    """Issue #73: the first ETA read 215h48m: the teacher's first search, compiling, was counted as labelling."""
    from types import SimpleNamespace
    clock = SimpleNamespace(now=0.0)
    monkeypatch.setattr(bootstrap, "time", SimpleNamespace(perf_counter=lambda: clock.now))
    lines = []
    labeller = bootstrap.Labeller(checkers, tmp_path, settings(few_games, positions=25), lines.append)
    labeller.teacher = _SlowStart(labeller.teacher, clock)
    labeller.run()
    progress = [line for line in lines if "labelled" in line]
    assert progress[0] == ("bootstrap: labelled 1/25 positions with alphabeta:eval=learned,depth=2, 1000.0 ms each; "
                           "ETA 24s"), progress


def test_a_time_limit_in_the_bootstrap_is_kept_and_named(few_games, tmp_path, capsys):
    """Issue #73: the chunk's first unit was the bootstrap's first epoch, begun after labelling past the limit,
    and the line said the run was saved at iteration 1 (selfplay)."""
    run = tmp_path / "run"
    main(["train", "alphazero", "--game", "checkers", "--run", str(run), "--minutes", "0.0001",
          "--set", "network=mlp:hidden=32,layers=1", "--set", f"bootstrap_games={few_games}",
          "--set", "bootstrap_teacher=alphabeta:eval=learned,depth=2", "--set", "bootstrap_positions=40",
          "--set", "bootstrap_epochs=2", "--set", "batch_size=16", "--set", "plots=false"])
    out, err = capsys.readouterr()
    assert "stopped at the time limit" in out
    assert ("stopped before the next bootstrap epoch; the run is saved in its bootstrap, before iteration 1"
            in err), err
    assert len(list((run / "bootstrap").glob("labels-*.npz"))) == 1
    initial = load_model(run / "checkpoints" / "iter-0000.npz", get_registry().make_game("checkers"))
    assert initial.metadata.get("epochs_done", 0) == 0        # the labels were the chunk's work: no epoch begun
