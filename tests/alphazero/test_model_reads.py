"""Networks reach their uses in memory: in the trainer's process the network the learner trained is the one
the gate's games, the ladder, the mistakes probe and the metrics use (no file read back to build it again),
each network file is opened at most once, a worker builds each network it is sent from the bytes (no file),
and a file rewritten on disk is read again."""
import builtins
import io
import os
from collections import Counter
from pathlib import Path

import pytest

from plyground.games.tictactoe import TicTacToe
from plyground.players.alphazero.networks import load_model
from plyground.plugins.trainers.alphazero import actors, modelfiles
from plyground.plugins.trainers.alphazero.actors import GameActor, MatchJob, MatchSide, ModelBlob
from plyground.plugins.trainers.alphazero.modelfiles import ModelFiles
from plyground.plugins.trainers.alphazero.trainer import AlphaZeroTrainer

from aztestgames import tiny_model

SMALL = dict(network="mlp:hidden=16,layers=1", selfplay_games=4, simulations=8, epochs=1, batch_size=16,
             comparison_games=2, comparison_simulations=8, workers=1, plots=False)


@pytest.fixture
def npz_reads(monkeypatch):
    """Every open of an ``.npz`` file for reading in this process, by absolute path: the real ``open`` still
    runs (numpy calls the builtin, pathlib and zipfile ``io.open``)."""
    reads, real_open = Counter(), io.open

    def counting_open(file, mode="r", *args, **kwargs):
        if isinstance(file, (str, os.PathLike)) and str(file).endswith(".npz") and not set(mode) & set("wax+"):
            reads[os.path.abspath(file)] += 1
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", counting_open)
    monkeypatch.setattr(io, "open", counting_open)
    return reads


@pytest.fixture
def networks_built(monkeypatch):
    """Every network built from a model file's bytes by the trainer's network files or an actor, by path."""
    built = Counter()
    for module in (actors, modelfiles):
        def counting_load(path, game, *, load=module.load_model, **kwargs):
            built[os.path.abspath(path)] += 1
            return load(path, game, **kwargs)
        monkeypatch.setattr(module, "load_model", counting_load)
    return built


def test_each_iteration_builds_only_the_learners_network_and_reads_each_file_at_most_once(tmp_path, npz_reads,
                                                                                          networks_built):
    # every phase that uses a network: self-play, training, comparison (new and best, accepted), evaluation,
    # the ladder (initial network and each iteration's), the mistakes probe; games played in this process, by
    # the same actor a worker runs; iteration 2 trains on from checkpoint 1, read in iteration 1 already
    run = tmp_path / "run"
    trainer = AlphaZeroTrainer(TicTacToe(), run, **SMALL, iterations=2, replace_threshold=0.0, evaluation_games=2,
                               ladder="random", ladder_games=2, mistakes="all", mistakes_positions=2,
                               mistakes_simulations=8)
    lines = []
    trainer.log = lines.append
    trainer.run()
    assert any("new network accepted" in line for line in lines)
    assert any("evaluation vs random" in line for line in lines)
    assert any("mistakes: iter-0002" in line for line in lines)
    checkpoint = {k: str(run / "checkpoints" / f"iter-000{k}.npz") for k in (0, 1, 2)}
    # the only networks built from a file: the learner's own copies of the networks it trains on (the initial
    # one and iteration 1's); the games, the gate, the ladder, the probe and the metrics use those it trained
    assert networks_built == {checkpoint[0]: 1, checkpoint[1]: 1}
    networks = {path: n for path, n in npz_reads.items()
                if Path(path).parent == run / "checkpoints" or Path(path) == run / "best.npz"}
    # the bytes of each checkpoint, once: for the learner's copy, and for best.npz, a copy of them (iteration
    # 2's network, accepted, is not trained on); best.npz is never read back, nothing else opens a network file
    assert networks == {checkpoint[k]: 1 for k in (0, 1, 2)}
    assert [path for path in npz_reads if path not in networks and "/replay/" not in path] == []
    assert trainer.models.playing(run / "best.npz") is trainer.models.playing(run / "checkpoints" / "iter-0002.npz")


def test_an_actor_builds_each_network_once_from_the_bytes_it_is_sent(tmp_path, npz_reads):
    game = TicTacToe()
    trainer = AlphaZeroTrainer(game, tmp_path / "run", **SMALL)
    blob = ModelBlob.read(tiny_model(game, tmp_path / "net.npz"))
    npz_reads.clear()
    actor = GameActor(game, trainer.playbook)
    try:
        def job(i, model):
            return MatchJob("comparison", 1, i, (MatchSide(model), MatchSide(model)), ("a", "b"), i, 20)
        first = list(actor.run(job(0, blob)))
        second = list(actor.run(job(1, blob.without_data())))     # known by its digest: the bytes are not sent
    finally:
        actor.close()
    assert first[0][0] == "match" and second[0][0] == "match"
    assert npz_reads == Counter()                 # no file written and read back


def test_a_rewritten_checkpoint_is_read_again(tmp_path, npz_reads):
    game = TicTacToe()
    path = tiny_model(game, tmp_path / "iter-0001.npz", epochs_done=1)
    models = ModelFiles(game)
    first = models.blob(path)
    assert models.blob(path) == first and models.network(path).metadata["epochs_done"] == 1
    assert npz_reads[str(path)] == 1
    tiny_model(game, path, network="mlp:hidden=12,layers=1", epochs_done=2)     # the learner's next epoch
    second = models.blob(path)
    assert second != first and models.network(path).metadata["epochs_done"] == 2
    assert npz_reads[str(path)] == 2              # the new version, once
    assert models.data(second.digest) == path.read_bytes() and load_model(path, game).metadata["epochs_done"] == 2


def test_copying_a_network_leaves_the_target_known_without_reading_it(tmp_path, npz_reads):
    game = TicTacToe()
    source = tiny_model(game, tmp_path / "iter-0001.npz")
    models = ModelFiles(game)
    models.copy(source, tmp_path / "best.npz")
    assert (tmp_path / "best.npz").read_bytes() == source.read_bytes()
    npz_reads.clear()
    assert models.blob(tmp_path / "best.npz") == models.blob(source)
    assert npz_reads == Counter()


def test_a_saved_network_is_kept_as_it_is_and_its_bytes_read_once_for_the_workers(tmp_path, npz_reads,
                                                                                   networks_built):
    game = TicTacToe()
    network = load_model(tiny_model(game, tmp_path / "initial.npz"), game)
    models, path = ModelFiles(game), tmp_path / "iter-0001.npz"
    models.save(network, path, "mlp", iteration=1, epochs_done=1, role="candidate")
    written = path.read_bytes()
    npz_reads.clear()
    blob = models.blob(path)
    assert blob.data is None and models.shared(blob.digest) is network is models.playing(path)
    assert models.metadata(path)["epochs_done"] == 1 == network.metadata["epochs_done"]
    assert npz_reads == Counter() and networks_built == Counter()        # the network as the learner left it
    assert models.data(blob.digest) == written == models.data(blob.digest)
    assert npz_reads == Counter({str(path): 1})                     # for the workers: once
    trained = models.network(path)                                  # the learner's own: built from those bytes
    assert trained is not network and networks_built == Counter({str(path): 1}) and npz_reads[str(path)] == 1


def test_load_model_opens_a_model_file_once(tmp_path, npz_reads):
    game = TicTacToe()
    path = tiny_model(game, tmp_path / "net.npz", network="resnet:channels=4,blocks=1")
    npz_reads.clear()
    network = load_model(path, game)             # the family from the metadata, then the weights: one read
    assert npz_reads == Counter({str(path): 1}) and network.metadata["network"] == "resnet"
    npz_reads.clear()
    again = load_model(path, game, data=path.read_bytes())
    assert npz_reads == Counter({str(path): 1})  # the read_bytes above; load_model itself opened nothing
    assert again.metadata == network.metadata
