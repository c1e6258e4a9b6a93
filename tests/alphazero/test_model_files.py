"""A model file is read once per load and names its network family: the plugin of that family reads it;
a family no plugin provides is refused in one line; a file that names none is still loaded."""
import collections

import numpy as np
import pytest

from plyground.errors import ModelFileError
from plyground.games.checkers import CheckersGame
from plyground.games.tictactoe import TicTacToe
from plyground.players.alphazero.networks import (BUNDLED, build_network, load_model, model_family, model_metadata,
                                                network_classes)
from plyground.files.storage import METADATA_KEY, load_npz, pop_metadata, save_npz

from aztestgames import tiny_model


@pytest.fixture
def member_reads(monkeypatch):
    """How often each member of an .npz archive is read (the real reads, counted on the way)."""
    reads = collections.Counter()
    real = np.lib.npyio.NpzFile.__getitem__

    def counted(self, key):
        reads[key] += 1
        return real(self, key)
    monkeypatch.setattr(np.lib.npyio.NpzFile, "__getitem__", counted)
    return reads


@pytest.mark.parametrize("name, game", [("tictactoe", TicTacToe), ("checkers", CheckersGame),
                                        ("checkers-bootstrap", CheckersGame), ("checkers-selfplay", CheckersGame)])
def test_a_bundled_model_is_read_once_by_the_plugin_of_the_family_it_names(member_reads, name, game):
    path = BUNDLED / f"{name}.npz"
    with np.load(path) as archive:
        weights = set(archive.files) - {METADATA_KEY}
    member_reads.clear()
    network = load_model(path, game())
    assert {key for key in member_reads if key != METADATA_KEY} == weights
    # every weight array once (each network class used to read the whole file in turn); the metadata twice:
    # alone, to find the family, then with the weights
    assert set(member_reads[key] for key in weights) == {1} and member_reads[METADATA_KEY] == 2
    assert type(network) is network_classes()[model_family(path)]


def test_a_model_of_a_family_no_plugin_provides_is_refused_in_one_line(tmp_path, cli):
    game = TicTacToe()
    path = tiny_model(game, tmp_path / "foreign.npz")
    # as a network plugin not installed here writes it: its family everywhere the file records one
    arrays = load_npz(path)
    meta = pop_metadata(arrays, "test")
    meta["architecture"]["family"] = meta["user"]["network"] = "transformer"
    save_npz(path, arrays, meta)
    assert model_family(path) == "transformer"
    installed = ", ".join(sorted(network_classes()))
    with pytest.raises(ModelFileError) as info:
        load_model(path, game)
    assert str(info.value) == (f"model file {path} holds a 'transformer' network, which no installed network "
                               f"plugin provides (installed: {installed})")
    code, out, err = cli("play", "--game", "tictactoe", "--black", "random", "--white", f"alphazero:model={path}")
    assert code == 2 and "'transformer' network" in err and "Traceback" not in err
    assert len([line for line in err.splitlines() if "error" in line]) == 1


def test_a_model_file_that_names_no_family_is_offered_to_every_plugin(tmp_path):
    game = TicTacToe()
    network = build_network(game, "mlp:hidden=8,layers=1", {"seed": 0})
    old = tmp_path / "old.npz"
    metadata = model_metadata(game, "mlp", iteration=0)
    del metadata["network"]                        # as written before the family was recorded
    network.save(old, metadata=metadata)
    assert model_family(old) is None
    loaded = load_model(old, game)
    board = np.stack([game.new_initial_state().observation()])
    for a, b in zip(loaded.predict(board), network.predict(board)):
        assert np.array_equal(a, b)
    assert model_family(tiny_model(game, tmp_path / "new.npz")) == "mlp"


def test_a_file_that_is_not_a_model_gets_the_plugins_one_message(tmp_path):
    path = tmp_path / "text.npz"
    path.write_text("not a model")
    assert model_family(path) is None
    with pytest.raises(ModelFileError) as info:
        load_model(path, TicTacToe())
    assert str(info.value) == f"model file {path} is corrupt or not an .npz archive"
