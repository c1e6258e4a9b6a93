"""`plyground train alphazero`: the run directory, config resolution, resuming, refusals."""
import json
import re
import resource

import numpy as np
import pytest

from plyground.cli import main
from plyground.games.tictactoe import TicTacToe
from plyground.players.alphazero import AlphaZeroPlayer
from plyground.plugins.trainers.alphazero import AlphaZeroTrainer
from plyground.plugins.trainers.alphazero.rundir import RunDirectory
from plyground.files.storage import read_json_lines
from plyground.util.memory import available_memory
from plyground.protocols import Budget
from plyground.registry import get_registry
from plyground.learning.train_command import read_toml

TINY = ("--set", "network=mlp:hidden=8,layers=1", "--set", "selfplay_games=3", "--set", "simulations=8",
        "--set", "comparison_games=2", "--set", "epochs=1", "--set", "save_every=2", "--set", "batch_size=8")




def train(cli, run_dir, *extra, game="tictactoe"):
    args = ["train", "alphazero", "--run", str(run_dir), *TINY, *extra]
    if game:
        args[2:2] = ["--game", game]
    return cli(*args)


def chunk_stamps(run_dir):
    return {p.relative_to(run_dir): (p.stat().st_mtime_ns, p.stat().st_ino) for p in (run_dir / "replay").rglob("*.npz")}


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    """A two-iteration tic-tac-toe run through the real command."""
    run_dir = tmp_path_factory.mktemp("run") / "ttt"
    code = None
    try:
        main(["train", "alphazero", "--game", "tictactoe", "--run", str(run_dir), *TINY,
              "--set", "iterations=2", "--set", "evaluation_games=2", "--quiet"])
        code = 0
    except SystemExit as exc:
        code = exc.code
    assert code == 0
    return run_dir


def test_trainer_is_registered_with_the_source_hyperparameters():
    entry = get_registry().get("trainers", "alphazero")
    names = {o.name for o in entry.options}
    assert {"iterations", "selfplay_games", "simulations", "c_puct", "comparison_games", "replace_threshold",
            "epochs", "batch_size", "lr", "lr_schedule", "weight_decay", "replay_window", "temperature_plies",
            "dirichlet_alpha", "dirichlet_epsilon", "augment", "network"} <= names
    assert AlphaZeroTrainer.produces == "alphazero:model={run}/best.npz"


def test_run_directory_layout(finished_run):
    d = finished_run
    for name in ("config.toml", "state.json", "best.npz", "metrics.jsonl", "checkpoints/iter-0000.npz",
                 "checkpoints/iter-0001.npz", "checkpoints/iter-0002.npz", "comparison/iter-0001.jsonl",
                 "games/selfplay-iter-0001.jsonl", "games/comparison-iter-0002.jsonl",
                 "plots/losses.png", "plots/gate.png", "plots/elo.png"):
        assert (d / name).is_file(), name
    # Chunks of save_every=2 games: 0-1 and 2.
    assert sorted(p.name for p in (d / "replay" / "iter-0001").iterdir()) == ["games-00000-00001.npz",
                                                                              "games-00002-00002.npz"]
    assert not list(d.rglob("*.tmp"))
    state = json.loads((d / "state.json").read_text())
    assert state["iteration"] == 3 and state["phase"] == "selfplay"
    metrics = [json.loads(line) for line in (d / "metrics.jsonl").read_text().splitlines()]
    assert [m["iteration"] for m in metrics] == [1, 2]
    for m in metrics:
        assert m["selfplay_games"] == 3 and m["loss"] > 0 and m["gate"]["wins"] + m["gate"]["draws"] + \
            m["gate"]["losses"] == 2
    config = read_toml(d / "config.toml")
    assert config["trainer"] == "alphazero" and config["game"] == "tictactoe"
    assert config["options"]["simulations"] == 8 and config["options"]["iterations"] == 2
    assert len((d / "games" / "selfplay-iter-0001.jsonl").read_text().splitlines()) == 3


def test_comparison_pits_the_new_network_against_the_best_with_colours_alternating(finished_run):
    games = read_json_lines(finished_run / "comparison" / "iter-0001.jsonl")
    assert [g["new_first"] for g in games] == [True, False]
    assert games[0]["record"]["players"] == ["iter-0001 (new)", "iter-0000 (best)"]
    assert games[1]["record"]["players"] == ["iter-0000 (best)", "iter-0001 (new)"]
    games2 = read_json_lines(finished_run / "comparison" / "iter-0002.jsonl")
    state_best = json.loads((finished_run / "metrics.jsonl").read_text().splitlines()[0])["best_iteration"]
    assert state_best != 2 and games2[0]["record"]["players"] == ["iter-0002 (new)", f"iter-{state_best:04d} (best)"]
    # one line and one record per game: the list grows by appending (N games, N writes)
    records = (finished_run / "games" / "comparison-iter-0002.jsonl").read_text().splitlines()
    assert len(records) == len(games2) == 2


def test_the_best_network_plays(finished_run):
    player = AlphaZeroPlayer(TicTacToe(), model=finished_run, simulations=10)
    assert player.model_path == finished_run / "best.npz"
    state = TicTacToe().new_initial_state()
    assert player.choose_move(state, Budget()) in range(9)


def test_replay_chunks_hold_the_examples_and_records(finished_run):
    rundir = RunDirectory(finished_run, TicTacToe())
    total_games = total_examples = 0
    for examples, records in rundir.iter_chunks(range(1, 2)):
        total_games += len(records)
        total_examples += len(examples)
        assert sum(len(r.moves) for r in records) == len(examples)
        assert examples.observations.dtype == np.float32
    assert total_games == 3


def test_rerunning_a_finished_run_plays_nothing_and_more_iterations_extend_it(cli, finished_run, tmp_path):
    import shutil
    run_dir = tmp_path / "copy"
    shutil.copytree(finished_run, run_dir)
    stamps = chunk_stamps(run_dir)
    code, out, err = cli("train", "alphazero", "--run", str(run_dir))     # all from config.toml
    assert code == 0, err
    assert chunk_stamps(run_dir) == stamps
    assert "trained:" in out
    code, out, err = cli("train", "alphazero", "--run", str(run_dir), "--set", "iterations=3")
    assert code == 0, err
    after = chunk_stamps(run_dir)
    assert {k: v for k, v in after.items() if k in stamps} == stamps
    assert len(after) == len(stamps) + 2
    assert "[iter 3/3]" in err and "iter 1/" not in err
    assert read_toml(run_dir / "config.toml")["options"]["iterations"] == 3


def test_options_come_from_the_config_file_then_set(cli, tmp_path):
    config = tmp_path / "az.toml"
    config.write_text('game = "tictactoe"\niterations = 1\nsimulations = 6\nc_puct = 2.5\n')
    run_dir = tmp_path / "run"
    code, out, err = cli("train", "alphazero", "--run", str(run_dir), "--config", str(config),
                             *TINY, "--set", "c_puct=3.0", "--quiet")
    assert code == 0, err
    options = read_toml(run_dir / "config.toml")["options"]
    assert options["simulations"] == 8          # --set beats the file
    assert options["c_puct"] == 3.0 and options["iterations"] == 1
    assert options["comparison_games"] == 2


@pytest.mark.parametrize("extra, message", [
    (("--set", "speed=3"), "trainer alphazero: unknown option 'speed'; valid options: iterations"),
    (("--set", "simulations=many"), "bad value 'many' for option 'simulations'"),
    (("--set", "replace_threshold=120"), "replace_threshold"),
    (("--set", "network=transformer"), "unknown network 'transformer'; valid networks: "),
    (("--set", "network=mlp:lr=0.1"), "sets 'lr', which is a trainer option"),
    (("--set", "device=gpu"), "network mlp: unknown device 'gpu'; valid devices: cpu, cuda, cuda:N"),
    (("--set", "precision=float16"), "network mlp: precision=float16 needs device=cuda"),
    (("--set", "network=mlp:device=cpu-portable"), "sets device, which is the trainer's option: set device=..."),
    (("--set", "nonsense"), "bad --set 'nonsense': expected KEY=VALUE"),
])
def test_bad_options_exit_2_with_one_line(cli, tmp_path, extra, message):
    code, out, err = train(cli, tmp_path / "run", *extra)
    assert code == 2, err
    assert message in err and "Traceback" not in err
    assert len([line for line in err.splitlines() if "error" in line.lower()]) == 1


def test_a_network_too_large_for_the_machine_is_refused_before_allocating(cli, tmp_path):
    """channels=100000 (a typo for 100?) would need terabytes: one line from the options alone, at once."""
    if available_memory() is None:
        pytest.skip("this system does not report its available memory: the check is off")
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    code, out, err = cli("train", "alphazero", "--game", "checkers", "--run", str(tmp_path / "run"),
                         "--set", "network=resnet:channels=100000,blocks=50", "--set", "workers=1")
    assert code == 2 and "Traceback" not in err
    assert re.search(r"network resnet:channels=100000,blocks=50 needs about [\d.]+ TB for its weights and "
                     r"training state .*; this machine has [\d.]+ [kMGT]?B available; use fewer channels/blocks",
                     err), err
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak_before < 200 * 1024   # kB: nothing big
    assert not (tmp_path / "run" / "checkpoints").exists()


def test_a_run_on_the_gpu_code_path_trains_plays_and_leaves_device_free_files(cli, tmp_path, monkeypatch):
    """device=cpu-portable (what device=cuda runs, on the CPU): the learner trains and the actors play on that
    device, and the run's networks load on the CPU as usual."""
    from plyground.plugins.trainers.alphazero.actors import GameActor
    from plyground.plugins.trainers.alphazero.learner import Learner
    devices, trained_on = [], []
    real_network, real_fit = GameActor._network, Learner.fit

    def recording_network(self, blob):
        network = real_network(self, blob)
        devices.append(network.device.name)
        return network

    def recording_fit(self, network, *args, **kwargs):
        trained_on.append(network.device.name)
        return real_fit(self, network, *args, **kwargs)
    monkeypatch.setattr(Learner, "fit", recording_fit)
    monkeypatch.setattr(GameActor, "_network", recording_network)
    code, out, err = train(cli, tmp_path / "run", "--set", "device=cpu-portable", "--set", "workers=1")
    assert code == 0, err
    assert trained_on and set(trained_on) == {"cpu-portable"}    # training on the device
    assert devices and set(devices) == {"cpu-portable"}          # self-play and the gate's games on the device
    best = AlphaZeroPlayer(TicTacToe(), model=tmp_path / "run" / "best.npz", simulations=4)
    assert best.network.device.name == "cpu"


def test_other_misuse(cli, tmp_path):
    code, _, err = cli("train", "alphazero", "--run", str(tmp_path / "r"))
    assert code == 2 and "give --game" in err
    code, _, err = cli("train", "alphago", "--game", "tictactoe", "--run", str(tmp_path / "r"))
    assert code == 2 and "unknown trainer 'alphago'; valid trainers: alphazero" in err


@pytest.mark.parametrize("config_text, message", [
    ("iterations = = 3\n", "is not valid TOML"),
    (None, "does not exist"),
    ('trainer = "bonanza"\n', "is for trainer 'bonanza'"),
], ids=["bad-toml", "missing", "other-trainer"])
def test_a_bad_config_file_is_refused(cli, tmp_path, config_text, message):
    config = tmp_path / "config.toml"
    if config_text is not None:
        config.write_text(config_text)
    code, _, err = cli("train", "alphazero", "--game", "tictactoe", "--run", str(tmp_path / "r"),
                       "--config", str(config))
    assert code == 2 and message in err


def test_a_run_keeps_its_game_and_network(cli, finished_run, tmp_path):
    import shutil
    run_dir = tmp_path / "copy"
    shutil.copytree(finished_run, run_dir)
    code, _, err = cli("train", "alphazero", "--game", "checkers", "--run", str(run_dir))
    assert code == 2 and f"run directory {run_dir} trains tictactoe, not checkers" in err
    code, _, err = cli("train", "alphazero", "--run", str(run_dir), "--set", "lr=0.5")
    assert code == 2 and "option 'lr' was 0.001 when the run" in err and "cannot change mid-run" in err
    code, _, err = cli("train", "alphazero", "--run", str(run_dir), "--set", "network=mlp:hidden=9")
    assert code == 2 and "option 'network'" in err
    # Refusals leave the run's config as it was.
    assert read_toml(run_dir / "config.toml")["options"]["lr"] == 0.001


def test_corrupt_files_in_the_run_are_refused_with_their_name(cli, finished_run, tmp_path):
    import shutil
    run_dir = tmp_path / "copy"
    shutil.copytree(finished_run, run_dir)
    (run_dir / "best.npz").write_bytes(b"\x00" * 100)
    code, _, err = cli("train", "alphazero", "--run", str(run_dir), "--set", "iterations=3")
    assert code == 2 and "best.npz" in err and "corrupt" in err and "Traceback" not in err
    shutil.rmtree(run_dir)
    shutil.copytree(finished_run, run_dir)
    chunk = sorted((run_dir / "replay" / "iter-0002").iterdir())[0]
    chunk.write_bytes(b"PK\x03\x04broken")
    code, _, err = cli("train", "alphazero", "--run", str(run_dir), "--set", "iterations=3")
    assert code == 2 and chunk.name in err and "corrupt" in err


def test_checkers_run_end_to_end_writes_pdn(cli, tmp_path):
    run_dir = tmp_path / "checkers"
    code, out, err = cli("train", "alphazero", "--game", "checkers", "--run", str(run_dir),
                             "--set", "network=mlp:hidden=16,layers=1", "--set", "iterations=1",
                             "--set", "selfplay_games=2", "--set", "simulations=4", "--set", "max_plies=24",
                             "--set", "comparison_games=2", "--set", "epochs=1", "--quiet")
    assert code == 0, err
    pdn = (run_dir / "games" / "selfplay-iter-0001.pdn").read_text()
    assert pdn.count('[Event "alphazero self-play, iteration 1"]') == 2
    assert '[Result "1/2-1/2"]' in pdn or '[Result "1-0"]' in pdn or '[Result "0-1"]' in pdn
    assert (run_dir / "games" / "comparison-iter-0001.pdn").read_text().count("[Black ") == 2
    assert (run_dir / "best.npz").is_file()
