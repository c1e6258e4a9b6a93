"""Deep Pepper's policy/value networks (paper section 3.4, appendix 7.1.2) as autograd network families.

The input is the 353-feature vector of ``chess:encoding=deep_pepper``, split
into global (0-16), piece-centric (17-224) and square-centric (225-352)
features (the paper's "218 piece-centric" is a typo for 208: 17 + 208 + 128
= 353).  The chess game offers that layout, part by part with each feature's
scale, as its ``deep_pepper`` feature layout (the FeatureLayouts capability,
docs/capabilities.md); nothing here imports the game.

* ``deep-pepper-parts``: each part feeds its own first layer (``h1a``,
  ``h1b``, ``h1c`` units); their outputs are concatenated and feed a policy
  head (``h2p`` units, then the action logits) and a value head (``h2e``
  units, then one tanh unit).  ``separate=false`` is PolicyValNetwork-parts
  (one first layer shared by both heads); ``separate=true`` is
  PolicyNetwork-parts + Critic-parts (the first layer is duplicated, one
  copy per head).
* ``deep-pepper-full``: the same with one fully connected first layer of
  ``h1`` units instead of the three parts (PolicyValNetwork-Full, or
  PolicyNetwork-full + Critic-full with ``separate=true``).

The policy output is the game's action space (4672 for chess here; the paper's
5120 was its own move indexing).

``normalize`` (on by default) scales each of the 353 features by the
layout's factor for it (piece counts divided by 8, attacker and defender
values by 10, slider reach by 7), so every input lies in [0, 1].  Unscaled, the first
layers' outputs are large enough that the tanh value unit starts saturated
for many positions; Adam then pushes it to a constant ±1 within the first
few steps and its gradient vanishes for good (seen in pretraining: value loss
stuck at 1.10).  Save, load, optimiser and inference are the
autograd plugin's :class:`AutogradNetwork`; the families are added to its
family table so its ``load`` can rebuild them.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from plyground.capabilities import feature_layout
from plyground.errors import OptionError
from plyground.options import Option
from plyground.plugins.autograd import networks as autograd_networks
from plyground.plugins.autograd import ops
from plyground.plugins.autograd.backend import array_module, device_of
from plyground.plugins.autograd.networks import RUNTIME_OPTIONS, TRAINING_OPTIONS, AutogradNetwork
from plyground.plugins.autograd.nn import Linear, Module, ReLU, Sequential, Tanh
from plyground.plugins.autograd.tensor import Tensor

#: The paper's split of the 353 features (appendix 7.1.1): global, piece-centric, the rest square-centric.
GLOBAL_FEATURES = 17
PIECE_FEATURES = 208
#: The feature layout the networks are made for, by the name of the game's encoding that gives it.
LAYOUT = "deep_pepper"


class _PartsLayer(Module):
    """First layer of the "parts" networks: global, piece and square features into separate ReLU layers."""

    def __init__(self, bounds: tuple[int, int, int], widths: tuple[int, int, int]) -> None:
        super().__init__()
        self.bounds = bounds                      # ends of the global, piece and square parts
        start = (0, bounds[0], bounds[1])
        self.global_layer = Sequential(Linear(bounds[0] - start[0], widths[0]), ReLU())
        self.piece_layer = Sequential(Linear(bounds[1] - start[1], widths[1]), ReLU())
        self.square_layer = Sequential(Linear(bounds[2] - start[2], widths[2]), ReLU())

    def forward(self, x: Tensor) -> Tensor:
        g, p, s = self.bounds
        return ops.cat([self.global_layer(x[:, :g]), self.piece_layer(x[:, g:p]), self.square_layer(x[:, p:s])],
                       axis=1)

    def _inference_plan(self, compile_module: Callable[[Module], Callable]) -> Callable:
        g, p, s = self.bounds
        first, second, third = (compile_module(m) for m in (self.global_layer, self.piece_layer, self.square_layer))
        return lambda x: array_module(x).concatenate([first(x[:, :g]), second(x[:, g:p]), third(x[:, p:s])], axis=1)


def feature_scale(size: int) -> np.ndarray | None:
    """Per-feature factors that bring the Deep Pepper features into [0, 1], from the installed game that offers
    their layout (None for an input of another size)."""
    layout = feature_layout(LAYOUT, size)
    return None if layout is None else np.asarray(layout.scale, dtype=np.float32)


class DeepPepperModel(Module):
    """First layer(s), then a policy head (logits) and a tanh value head; ``critic_trunk`` None = shared.
    ``input_scale`` (or None) multiplies the features first."""

    def __init__(self, make_trunk: Callable[[], tuple[Module, int]], num_actions: int, h2p: int, h2e: int,
                 separate: bool, input_scale: np.ndarray | None = None) -> None:
        super().__init__()
        self.input_scale = input_scale
        self.trunk, width = make_trunk()
        self.critic_trunk = make_trunk()[0] if separate else None
        self.policy_head = Sequential(Linear(width, h2p), ReLU(), Linear(h2p, num_actions, init="xavier"))
        self.value_head = Sequential(Linear(width, h2e), ReLU(), Linear(h2e, 1, init="xavier"), Tanh())

    def forward(self, x: Tensor) -> tuple[Tensor, Tensor]:
        if self.input_scale is not None:
            x = x * self.input_scale
        features = self.trunk(x)
        critic = features if self.critic_trunk is None else self.critic_trunk(x)
        return self.policy_head(features), ops.reshape(self.value_head(critic), (-1,))

    def _inference_plan(self, compile_module: Callable[[Module], Callable]) -> Callable:
        trunk, policy, value = (compile_module(m) for m in (self.trunk, self.policy_head, self.value_head))
        critic = trunk if self.critic_trunk is None else compile_module(self.critic_trunk)
        scale = self.input_scale
        scales: dict = {}        # the scale on each device and in each type the plan meets (a GPU's, float16)

        def run(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            if scale is not None:
                key = (device_of(x), x.dtype)
                if key not in scales:
                    scales[key] = key[0].asarray(scale, x.dtype)
                x = x * scales[key]
            features = trunk(x)
            return policy(features), value(features if critic is trunk else critic(x)).reshape(-1)
        return run


def _head_options(value_units: int, variant: str) -> tuple[Option, ...]:
    """The options after the first layer(s), the same in both variants but for the value head's default."""
    return (
        Option("h2p", int, 2048, "hidden units of the policy head", min=1),
        Option("h2e", int, value_units, "hidden units of the value head", min=1),
        Option("separate", bool, False, f"separate first layers for policy and value "
               f"(Policy-{variant} + Critic-{variant})"),
        Option("normalize", bool, True, "scale the 353 features into [0, 1] (unscaled, the tanh value unit "
               "saturates and stops learning)"),
    )


def _model(first_layer, size: int, num_actions: int, params: dict[str, Any]) -> "DeepPepperModel":
    """A DeepPepperModel on ``first_layer`` (a factory of (layer, its width)) with the head options of ``params``."""
    return DeepPepperModel(first_layer, num_actions, params["h2p"], params["h2e"], params["separate"],
                           feature_scale(size) if params["normalize"] else None)


class _DeepPepperNetwork(AutogradNetwork):
    """Shared checks: flat observations (the Deep Pepper vector or any vector of the right size)."""

    @classmethod
    def check_observation_shape(cls, observation_shape: tuple[int, ...]) -> None:
        super().check_observation_shape(observation_shape)
        if len(observation_shape) != 1:
            raise OptionError(f"network {cls.name} needs flat feature vectors such as chess:encoding=deep_pepper "
                              f"(353,), got observations of shape {observation_shape}")


class DeepPepperPartsNetwork(_DeepPepperNetwork):
    name = "deep-pepper-parts"
    description = ("Deep Pepper PolicyValNetwork-parts (separate=true: Policy-parts + Critic-parts): global, "
                   "piece-centric and square-centric features into separate first layers")
    model_options = (
        Option("global_features", int, GLOBAL_FEATURES, "size of the global part at the start of the input", min=1),
        Option("piece_features", int, PIECE_FEATURES, "size of the piece-centric part after it; the rest is "
               "square-centric", min=1),
        Option("h1a", int, 32, "first-layer units for the global features", min=1),
        Option("h1b", int, 512, "first-layer units for the piece-centric features", min=1),
        Option("h1c", int, 480, "first-layer units for the square-centric features", min=1),
    ) + _head_options(value_units=512, variant="parts")
    options = model_options + TRAINING_OPTIONS + RUNTIME_OPTIONS

    @classmethod
    def make_model(cls, observation_shape, num_actions, params):
        size = math.prod(observation_shape)
        g, p = params["global_features"], params["global_features"] + params["piece_features"]
        if p >= size:
            raise OptionError(f"network {cls.name}: global_features + piece_features = {p} leaves no "
                              f"square-centric features in an input of {size}")
        widths = (params["h1a"], params["h1b"], params["h1c"])
        return _model(lambda: (_PartsLayer((g, p, size), widths), sum(widths)), size, num_actions, params)

    @classmethod
    def parameter_count(cls, observation_shape, num_actions, params):
        size = math.prod(observation_shape)
        g, p = params["global_features"], params["global_features"] + params["piece_features"]
        widths = (params["h1a"], params["h1b"], params["h1c"])
        trunk = sum((inputs + 1) * width for inputs, width in zip((g, p - g, size - p), widths))
        return _model_parameters(trunk, sum(widths), num_actions, params)


class DeepPepperFullNetwork(_DeepPepperNetwork):
    name = "deep-pepper-full"
    description = ("Deep Pepper PolicyValNetwork-Full (separate=true: Policy-full + Critic-full): one fully "
                   "connected first layer")
    model_options = (
        Option("h1", int, 1024, "units of the fully connected first layer", min=1),
    ) + _head_options(value_units=2048, variant="full")
    options = model_options + TRAINING_OPTIONS + RUNTIME_OPTIONS

    @classmethod
    def make_model(cls, observation_shape, num_actions, params):
        size, h1 = math.prod(observation_shape), params["h1"]
        return _model(lambda: (Sequential(Linear(size, h1), ReLU()), h1), size, num_actions, params)

    @classmethod
    def parameter_count(cls, observation_shape, num_actions, params):
        size, h1 = math.prod(observation_shape), params["h1"]
        return _model_parameters((size + 1) * h1, h1, num_actions, params)


def _model_parameters(trunk: int, width: int, num_actions: int, params: dict[str, Any]) -> int:
    """Parameters of a DeepPepperModel whose first layer(s) hold ``trunk`` parameters and give ``width``
    features (the autograd plugin checks the size fits in memory before building)."""
    h2p, h2e = params["h2p"], params["h2e"]
    heads = (width + 1) * h2p + (h2p + 1) * num_actions + (width + 1) * h2e + h2e + 1
    return trunk * (2 if params["separate"] else 1) + heads


NETWORKS: tuple[type[AutogradNetwork], ...] = (DeepPepperPartsNetwork, DeepPepperFullNetwork)

# AutogradNetwork.load rebuilds a file's network through the autograd plugin's family table.
for _cls in NETWORKS:
    autograd_networks.FAMILIES.setdefault(_cls.name, _cls)


def parameter_count(network: Any) -> int:
    return sum(int(np.prod(p.data.shape)) for p in network.model.parameters())
