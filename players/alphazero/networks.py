"""Networks for AlphaZero: finding the network plugins, building, saving and loading model files.

A model file is whatever the network plugin's ``save`` writes (``.npz``
arrays + JSON metadata, never pickle).  AlphaZero adds its own metadata:
the game's name and parameters and its learner encodings
(``observation_shape``, ``num_actions``), so a model is never used for
another game or encoding, and the network family (``network``), so
:func:`load_model` picks the plugin of that family.  A model file is read
once per load, by :func:`read_model_file` (the one place that opens it):
the metadata and the weights come from the same bytes.
"""
from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import numpy as np

from plyground.capabilities import bundled_model
from plyground.errors import ModelFileError, PlygroundError, UsageError
from plyground.options import Spec
from plyground.protocols import NETWORK_RUNTIME_OPTIONS, Game, Network
from plyground.files.atomic import check_regular_file, describe_os_error
from plyground.files.storage import METADATA_KEY, load_npz, pop_metadata

MODEL_KIND = "alphazero-model"
BUNDLED = Path(__file__).resolve().parent / "models"


def network_classes() -> dict[str, type[Network]]:
    """Installed network plugins by name (the registry's ``networks``)."""
    from plyground.registry import get_registry
    return {entry.name: entry.cls for entry in get_registry().entries("networks")}


def network_class(name: str) -> type[Network]:
    classes = network_classes()
    if name not in classes:
        raise UsageError(f"unknown network '{name}'; valid networks: {', '.join(sorted(classes)) or '(none installed)'}")
    return classes[name]


def build_network(game: Game, spec: str, training: dict[str, Any]) -> Network:
    """A fresh network for ``game`` from a spec such as ``resnet:channels=32,blocks=2``.

    ``training`` holds the optimiser settings the trainer owns (lr, weight
    decay, ...); the spec may not set them too.
    """
    parsed = Spec.parse(spec)
    cls = network_class(parsed.name)
    clash = sorted(set(parsed.options) & set(training))
    if clash:
        raise UsageError(f"network spec {spec!r} sets '{clash[0]}', which is a trainer option: "
                         f"set it as {clash[0]}=... instead")
    known = {opt.name for opt in cls.options}
    config = dict(parsed.options)
    config.update({k: v for k, v in training.items() if k in known})
    try:
        return cls.build(tuple(game.observation_shape), int(game.num_actions), config)
    except PlygroundError as exc:
        message = str(exc)
        if not message.startswith(f"network {parsed} "):   # one that names the spec already needs no prefix
            message = f"network {spec!r} for {game.name}: {message}"
        raise UsageError(message) from None


def model_metadata(game: Game, network_name: str, **extra: Any) -> dict[str, Any]:
    return {"kind": MODEL_KIND, "game": game.name, "game_params": _jsonable(game.params),
            "observation_shape": list(game.observation_shape), "num_actions": int(game.num_actions),
            "network": network_name, **extra}


def save_model(network: Network, path: Path, game: Game, network_name: str, **extra: Any) -> None:
    """Write ``network`` atomically with AlphaZero's metadata."""
    network.save(Path(path), metadata=model_metadata(game, network_name, **extra))


def resolve_model_path(model: Path | None, game: Game) -> Path:
    """The model file named by the ``model`` option: a file, a run directory (its best.npz),
    or ``None`` for the model bundled for ``game``."""
    if model is None:
        bundled = bundled_model(game, "alphazero") or BUNDLED / f"{game.name}.npz"
        if not bundled.is_file():
            raise UsageError(f"no model is bundled for {game.name}: give one with alphazero:model=FILE "
                             f"(or a run directory of `plyground train alphazero`)")
        return bundled
    path = Path(model).expanduser()
    if path.is_dir():
        best = path / "best.npz"
        if not best.is_file():
            raise ModelFileError(f"run directory {path} has no best.npz (has its training started?)")
        return best
    if not path.exists():
        raise ModelFileError(f"model file {path} does not exist")
    return path


RUNTIME_DEFAULTS = {option.name: option.default for option in NETWORK_RUNTIME_OPTIONS}


def read_model_file(path: Path) -> bytes:
    """The bytes of the model file at ``path``, read in one open: every model file AlphaZero loads is
    read here (then parsed from these bytes); ModelFileError if it is missing, not a regular file or
    unreadable."""
    path = Path(path)
    check_regular_file(path, error=ModelFileError, label=f"model file {path}")
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise ModelFileError(f"model file {path} does not exist") from None
    except OSError as exc:
        raise ModelFileError(f"model file {path} is unreadable ({describe_os_error(exc)})") from None


def model_family(path: Path, data: bytes | None = None) -> str | None:
    """The network family a model file names, from its metadata alone (``data``: the file's bytes, read
    already): the ``network`` that :func:`save_model` recorded, wherever the network's format keeps the
    metadata it was given (at the top or one level down: the autograd format's ``user``).  None for a file
    that names none (written before families were recorded, or not by :func:`save_model`) or whose metadata
    cannot be read so; the network plugins then say what is wrong with it."""
    try:
        meta = pop_metadata(load_npz(Path(path), names=(METADATA_KEY,), data=data), f"model file {path}")
    except ModelFileError:
        return None
    if not isinstance(meta, dict):
        return None
    for place in (meta, *meta.values()):
        if isinstance(place, dict) and place.get("kind") == MODEL_KIND and isinstance(place.get("network"), str):
            return place["network"]
    return None


def load_model(path: Path, game: Game, *, device: str = "cpu", precision: str = "float32",
               data: bytes | None = None) -> Network:
    """Load an AlphaZero model for ``game``, computing on ``device`` in ``precision`` (the autograd networks:
    cpu, cuda, cuda:N; float16 on a GPU); ModelFileError if it is corrupt, for another game/encoding or of
    a network family no installed plugin provides.  A network plugin whose ``load`` takes no ``device``
    loads on the CPU only.

    ``data``: the file's bytes, read already (``path`` then names the file in messages only; nothing is
    opened); else the file is read once (:func:`read_model_file`).  The family the bytes name
    (:func:`model_family`) picks the plugin that builds the network from them; a file that names none is
    offered to each plugin in turn."""
    path = Path(path)
    classes = network_classes()
    if not classes:
        raise UsageError("no network plugin is installed (the autograd plugin provides resnet and mlp)")
    if data is None:
        data = read_model_file(path)
    family = model_family(path, data)
    if family is not None and family not in classes:
        raise ModelFileError(f"model file {path} holds a {family!r} network, which no installed network plugin "
                             f"provides (installed: {', '.join(sorted(classes))})")
    runtime = {name: value for name, value in (("device", device), ("precision", precision))
               if value != RUNTIME_DEFAULTS[name]}
    errors: list[ModelFileError] = []
    network = None
    for cls in [classes[family]] if family is not None else classes.values():
        takes_runtime = _takes_keywords(cls.load, runtime)
        given = dict(runtime) if takes_runtime else {}
        if _takes_keywords(cls.load, ["data"]):
            given["data"] = data          # the bytes read above: the plugin opens nothing
        try:
            network = cls.load(path, **given)
        except ModelFileError as exc:
            errors.append(exc)
            continue
        if not takes_runtime:
            asked = ", ".join(f"{name}={value}" for name, value in runtime.items())
            raise UsageError(f"model file {path} holds a network of plugin {cls.name!r}, which runs on the CPU in "
                             f"float32 only ({asked} asked for)")
        break
    if network is None:
        messages = list(dict.fromkeys(str(e) for e in errors))
        raise ModelFileError(messages[0] if len(messages) == 1 else
                             f"model file {path} could not be read by any network plugin: " + "; ".join(messages))
    check_model(path, getattr(network, "metadata", {}) or {}, game)
    return network


def _takes_keywords(method, names) -> bool:
    parameters = inspect.signature(method).parameters
    return all(name in parameters for name in names) or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())


def check_model(path: Path, meta: dict, game: Game) -> None:
    if meta.get("kind") != MODEL_KIND or "game" not in meta:
        raise ModelFileError(f"model file {path} is a network without AlphaZero metadata (no game recorded); "
                             f"train one with `plyground train alphazero`")
    shape = tuple(meta.get("observation_shape") or ())
    actions = meta.get("num_actions")
    if meta["game"] != game.name or shape != tuple(game.observation_shape) or actions != game.num_actions:
        raise ModelFileError(
            f"model file {path} was trained for {meta['game']} (observations {shape}, {actions} actions); "
            f"this game is {game.name} (observations {tuple(game.observation_shape)}, {game.num_actions} actions)"
            + _other_parameters_hint(meta, game))


def _other_parameters_hint(meta: dict, game: Game) -> str:
    """For a model of the same game with other parameters (another encoding): the game spec it plays."""
    trained = meta.get("game_params") or {}
    if meta["game"] != game.name or not isinstance(trained, dict):
        return ""
    current = getattr(game, "params", None) or {}
    differing = {name: value for name, value in trained.items() if name in current and current[name] != value}
    if not differing:
        return ""
    spec = game.name + ":" + ",".join(f"{name}={str(value).lower() if isinstance(value, bool) else value}"
                                      for name, value in differing.items())
    return f"; play it with --game {spec}"


def network_evaluator(network: Network):
    """``evaluate(observations) -> (logits, values)`` for a search."""
    def evaluate(observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return network.predict(observations)
    return evaluate


def _jsonable(params: dict) -> dict:
    out = {}
    for key, value in params.items():
        try:
            json.dumps(value)
            out[key] = value
        except TypeError:
            out[key] = str(value)
    return out


def export_model(source: Path, target: Path, game: Game) -> None:
    """Write the model at ``source`` to ``target`` without its optimiser state (a smaller file to ship).

    Works for networks that expose a PyTorch-style ``model`` (``state_dict`` /
    ``load_state_dict``) and their build ``config``, as the autograd ones do;
    any other network is copied as it is.
    """
    network = load_model(source, game)
    inner = getattr(network, "model", None)
    config = getattr(network, "config", None)
    if inner is None or not isinstance(config, dict) or not hasattr(inner, "state_dict"):
        network.save(Path(target), metadata=dict(network.metadata))
        return
    fresh = type(network).build(tuple(game.observation_shape), int(game.num_actions), dict(config))
    fresh.model.load_state_dict(inner.state_dict())
    fresh.save(Path(target), metadata={**network.metadata, "exported_from": str(source)})
