"""The ``resnet`` and ``mlp`` network plugins: policy/value models behind the host's Network protocol."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import numpy as np

from plyground.errors import ModelFileError, OptionError, PlygroundError
from plyground.options import Option, Spec, resolve_options
from plyground.protocols import NETWORK_RUNTIME_OPTIONS, Network

from . import cuda_graph
from .backend import Device, DeviceError, get_device, is_array, to_numpy
from .inference import compile_inference
from .losses import alphazero_loss
from .memory import NotEnoughMemoryError, check_fits_in_memory, keep_freed_memory
from .policy_value import PolicyValueMLP, PolicyValueResNet
from .nn.module import Module
from .ops import cuda_kernels
from .optim import SGD, Adam, AdamW, clip_grad_norm_
from .optim.lr_scheduler import CosineAnnealingLR, LambdaLR, LRScheduler, StepLR
from .rng import seeded
from .serialization import check_arrays, load_arrays, save_arrays
from .tensor import DEFAULT_DTYPE, Tensor

TRAINING_OPTIONS: tuple[Option, ...] = (
    Option("optimizer", str, "sgd", "update rule", choices=("sgd", "adam", "adamw")),
    Option("lr", float, 0.02, "learning rate", min=0.0),
    Option("momentum", float, 0.9, "SGD momentum", min=0.0, max=0.999),
    Option("nesterov", bool, False, "Nesterov momentum (SGD)"),
    Option("weight_decay", float, 1e-4, "L2 weight decay (decoupled for adamw)", min=0.0),
    Option("lr_schedule", str, "constant", "learning-rate schedule over training steps",
           choices=("constant", "cosine", "step")),
    Option("lr_steps", int, 100_000, "cosine: steps to reach zero; step: steps between 10x decays", min=1),
    Option("grad_clip", float, None, "clip the global gradient norm to this value", min=0.0, optional=True),
    Option("value_weight", float, 1.0, "weight of the value loss against the policy loss", min=0.0),
    Option("seed", int, 0, "seed for the initial weights", min=0),
)

#: Where and how the network computes: not part of the model, so never saved in its file (a network trained on
#: a GPU plays on the CPU); ``load`` takes them anew.
RUNTIME_OPTIONS = NETWORK_RUNTIME_OPTIONS
RUNTIME_NAMES = tuple(option.name for option in RUNTIME_OPTIONS)
_RUNTIME_DEFAULTS = {option.name: option.default for option in RUNTIME_OPTIONS}

FORMAT_KIND = "network"


class AutogradNetwork(Network):
    """Shared machinery: optimiser, training step, fast inference, save and load."""

    name: ClassVar[str] = ""
    model_options: ClassVar[tuple[Option, ...]] = ()
    #: The Module a family builds, called as ``model_class(shape, num_actions, **model options)`` and
    #: counted by its ``parameter_count`` classmethod with the same arguments; None for a family that
    #: overrides :meth:`make_model` and :meth:`parameter_count`.
    model_class: ClassVar[type | None] = None
    shrink_hint: ClassVar[str] = "use a smaller network"   # the advice when a network would not fit

    def __init__(self, model: Module, observation_shape: tuple[int, ...], num_actions: int,
                 config: dict[str, Any]) -> None:
        keep_freed_memory()
        self.device = check_runtime(config, f"network {self.name}")
        self.precision = np.dtype(config.get("precision", "float32"))
        self.model = model.to(self.device)
        self.observation_shape = tuple(observation_shape)
        self.num_actions = num_actions
        self.config = config
        self.optimizer = _make_optimizer(model, config)
        self.scheduler = _make_scheduler(self.optimizer, config)
        self.train_steps = 0
        self.metadata: dict[str, Any] = {}
        self._plan = None  # compiled inference function; rebuilt after the weights change
        self._step_graph: cuda_graph.StepGraph | None = None   # the training step as a CUDA graph (on a GPU)

    # ------------------------------------------------------------------ building
    @classmethod
    def build(cls, observation_shape: tuple[int, ...], num_actions: int,
              config: dict | None = None) -> "AutogradNetwork":
        config = dict(config or {})
        family_cls = cls._family_class(config.pop("family", None))
        params = resolve_options(family_cls.options, config, f"network {family_cls.name}")
        check_runtime(params, f"network {family_cls.name}")       # a missing GPU: refused before any array exists
        observation_shape = tuple(int(n) for n in observation_shape)
        if not isinstance(num_actions, (int, np.integer)) or num_actions < 1:
            raise OptionError(f"network {family_cls.name}: num_actions must be a positive integer, got {num_actions!r}")
        family_cls.check_observation_shape(observation_shape)
        family_cls.check_memory(observation_shape, int(num_actions), params, given=config)
        with seeded(params["seed"]):
            model = family_cls.make_model(observation_shape, int(num_actions), params)
        return family_cls(model, observation_shape, int(num_actions), params)

    @classmethod
    def _family_class(cls, family: str | None) -> type["AutogradNetwork"]:
        if family is None:
            if not cls.name:
                raise OptionError(f"config needs a 'family': one of {', '.join(FAMILIES)}")
            return cls
        if family not in FAMILIES:
            raise OptionError(f"unknown network family {family!r}; valid families: {', '.join(FAMILIES)}")
        if cls.name and family != cls.name:
            raise OptionError(f"network {cls.name} cannot build family {family!r}")
        return FAMILIES[family]

    @classmethod
    def check_observation_shape(cls, observation_shape: tuple[int, ...]) -> None:
        if not observation_shape or any(n < 1 for n in observation_shape):
            raise OptionError(f"network {cls.name}: bad observation shape {observation_shape}")

    @classmethod
    def make_model(cls, observation_shape: tuple[int, ...], num_actions: int, params: dict[str, Any]) -> Module:
        """The family's ``model_class`` built from the observation shape as the model takes it and the
        model options; a family without a ``model_class`` builds its own."""
        if cls.model_class is None:
            raise NotImplementedError
        return cls.model_class(cls.model_shape(observation_shape), num_actions, **cls._model_kwargs(params))

    @classmethod
    def parameter_count(cls, observation_shape: tuple[int, ...], num_actions: int,
                        params: dict[str, Any]) -> int | None:
        """Trainable parameters ``make_model`` would create, counted without creating them; None (no memory
        check) for a family that does not say, so families written before the check keep building."""
        if cls.model_class is None:
            return None
        return cls.model_class.parameter_count(cls.model_shape(observation_shape), num_actions,
                                               **cls._model_kwargs(params))

    @staticmethod
    def model_shape(observation_shape: tuple[int, ...]) -> tuple[int, ...]:
        """The observation shape as the model takes it (a family may add a channel axis)."""
        return observation_shape

    @classmethod
    def _model_kwargs(cls, params: dict[str, Any]) -> dict[str, Any]:
        return {opt.name: params[opt.name] for opt in cls.model_options}

    @classmethod
    def check_memory(cls, observation_shape: tuple[int, ...], num_actions: int, params: dict[str, Any],
                     given: dict[str, Any]) -> None:
        """Refuse (NotEnoughMemoryError) a network whose training state would not fit in the available memory,
        before any array exists; ``given`` (the options as asked) names it the way it was asked for."""
        sizes = {opt.name for opt in cls.model_options}
        spec = Spec(cls.name, {name: value for name, value in given.items() if name in sizes})
        count = cls.parameter_count(observation_shape, num_actions, params)
        if count is not None:
            check_fits_in_memory(str(spec), count, np.dtype(DEFAULT_DTYPE).itemsize, cls.shrink_hint)

    def model_input(self, observations: np.ndarray) -> np.ndarray:
        """Observations as the model's float32 input (a family may add a channel axis)."""
        observations = np.asarray(observations, dtype=np.float32)
        if observations.shape[1:] != self.observation_shape:
            raise ValueError(f"network {self.name}: observations of shape {observations.shape[1:]} (after the batch "
                             f"axis); this network takes {self.observation_shape}")
        return observations

    # ----------------------------------------------------------------- protocol
    def predict(self, observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x = self.model_input(observations)
        with self.device.activate():
            if self._plan is None:
                self.model.eval()
                self._plan = compile_inference(self.model, self.precision)
            logits, values = self._plan(self.device.asarray(x))
            return (np.ascontiguousarray(to_numpy(logits), dtype=np.float32),
                    np.ascontiguousarray(to_numpy(values), dtype=np.float32))

    def train_step(self, observations: np.ndarray, policies: np.ndarray, values: np.ndarray) -> dict[str, float]:
        x = self.model_input(observations)
        batch = x.shape[0]
        policies = np.asarray(policies, dtype=np.float32)
        values = np.asarray(values, dtype=np.float32).reshape(-1)
        if policies.shape != (batch, self.num_actions) or values.shape != (batch,):
            raise ValueError(f"train_step: policies {policies.shape} and values {values.shape} do not fit "
                             f"a batch of {batch} with {self.num_actions} actions")
        self._plan = None
        with self.device.activate():
            self.model.train()
            if self.device.name.startswith("cuda") and cuda_graph.ENABLED and self.config["grad_clip"] is None:
                if self._step_graph is None:
                    xp = self.device.xp
                    self._step_graph = cuda_graph.StepGraph(
                        xp, lambda *arrays: xp.stack([part.data.reshape(()) for part in self._step(*arrays)]))
                total, value_loss, policy_loss = self._step_graph.run([x, policies, values], self._state_key)
            else:
                loss = self._step(self.device.asarray(x), policies, values)
                total, value_loss, policy_loss = (part.item() for part in loss)
            self.scheduler.step()
            self.train_steps += 1
            return {"loss": float(total), "value_loss": float(value_loss), "policy_loss": float(policy_loss)}

    def _step(self, x: Any, policies: Any, values: Any) -> Any:
        """Forward, loss, backward and the optimiser's update on one batch (``x`` on the device); the losses."""
        self.optimizer.zero_grad()
        logits, predicted = self.model(Tensor(x))
        loss = alphazero_loss(logits, predicted, policies, values, self.config["value_weight"])
        loss.total.backward()
        if self.config["grad_clip"] is not None:
            clip_grad_norm_(self.model.parameters(), self.config["grad_clip"])
        self.optimizer.step()
        return loss

    def _state_key(self) -> tuple:
        """Everything a CUDA graph of :meth:`_step` fixes at capture: the addresses of the weights, buffers
        and optimiser state, and every scalar of the update (see cuda_graph.py)."""
        key: list = [cuda_graph.array_key(p.data) for p in self.model.parameters()]
        key += [cuda_graph.array_key(b) for _, b in self.model.named_buffers()]
        for group in self.optimizer.param_groups:
            key.append(tuple((k, repr(v)) for k, v in sorted(group.items()) if k != "params"))
        for state in self.optimizer.state.values():
            key.append(tuple((k, cuda_graph.array_key(v) if is_array(v) else repr(v)) for k, v in state.items()))
        key.append((self.config["value_weight"], cuda_kernels.ENABLED))
        return tuple(key)

    def set_learning_rate(self, lr: float) -> None:
        """Train on at ``lr`` (the schedule, if any, now scales ``lr``); kept in the saved file, so a
        reloaded network goes on at it."""
        self.config["lr"] = float(lr)
        self.scheduler.base_lrs = [float(lr)] * len(self.optimizer.param_groups)
        for group in self.optimizer.param_groups:
            group["initial_lr"] = float(lr)
        self.scheduler.load_state_dict(self.scheduler.state_dict())      # re-applies the rates, same step

    def learning_rate(self) -> float:
        return float(self.optimizer.param_groups[0]["lr"])

    # ----------------------------------------------------------- save and load
    def save(self, path: Path, metadata: dict | None = None) -> None:
        """Weights, batch-norm statistics, optimiser state and architecture, written atomically: numpy arrays
        and JSON whatever the device (no device or precision recorded), so the file loads on any device."""
        arrays = {f"model/{name}": to_numpy(value) for name, value in self.model.state_dict().items()}
        optimizer_state = self.optimizer.state_dict()
        scalars: dict[str, dict[str, Any]] = {}
        for index, entry in optimizer_state["state"].items():
            for key, value in entry.items():
                if is_array(value):
                    arrays[f"optimizer/{index}/{key}"] = to_numpy(value)
                else:
                    scalars.setdefault(str(index), {})[key] = value
        save_arrays(path, arrays, {
            "kind": FORMAT_KIND,
            "architecture": self.architecture(),
            "config": {key: value for key, value in self.config.items() if key not in RUNTIME_NAMES},
            "optimizer": {"param_groups": optimizer_state["param_groups"], "scalars": scalars},
            "scheduler": self.scheduler.state_dict(),
            "train_steps": self.train_steps,
            "user": dict(metadata or {}),
        })

    def architecture(self) -> dict[str, Any]:
        """What must match for weights to fit: family, encodings and the model options."""
        return {"family": self.name, "observation_shape": list(self.observation_shape),
                "num_actions": self.num_actions,
                "model": {opt.name: self.config[opt.name] for opt in self.model_options}}

    @classmethod
    def load(cls, path: Path, *, observation_shape: tuple[int, ...] | None = None,
             num_actions: int | None = None, device: str = "cpu", precision: str = "float32",
             data: bytes | None = None) -> "AutogradNetwork":
        """Rebuild the network saved at ``path`` on ``device``, predicting in ``precision``.  Giving
        ``observation_shape`` / ``num_actions`` (the game's) makes a file for other encodings fail with a
        ModelFileError saying so.  ``data``: the file's bytes, read already (nothing is opened)."""
        built: dict[str, Any] = {}

        def build(meta: dict[str, Any], declared: dict[str, tuple]) -> None:
            """The network the metadata describes, and the file's model arrays checked against it by their
            headers -- before any is decompressed (a 1 MB file may declare a gigabyte of zeros: issue #57)."""
            if meta.get("kind") != FORMAT_KIND or not isinstance(meta.get("architecture"), dict):
                raise ModelFileError(f"model file {path} is not a saved network (kind {meta.get('kind')!r})")
            _check_metadata(path, meta)
            arch = meta["architecture"]
            family = arch.get("family")
            if cls.name and family != cls.name:
                raise ModelFileError(f"model file {path} holds a {family!r} network; expected {cls.name!r}")
            if family not in FAMILIES:
                raise ModelFileError(f"model file {path} holds unknown network family {family!r}; "
                                     f"known: {', '.join(FAMILIES)}")
            found_shape = tuple(arch.get("observation_shape") or ())
            if observation_shape is not None and found_shape != tuple(observation_shape):
                raise ModelFileError(f"model file {path} is for observations of shape {found_shape}; "
                                     f"expected {tuple(observation_shape)}")
            if num_actions is not None and arch.get("num_actions") != num_actions:
                raise ModelFileError(f"model file {path} is for {arch.get('num_actions')} actions; expected {num_actions}")
            config = {key: value for key, value in (meta.get("config") or {}).items() if key not in RUNTIME_NAMES}
            config.update(_runtime_options(FAMILIES[family], device, precision))
            try:
                network = FAMILIES[family].build(found_shape, arch.get("num_actions"), config)
            except NotEnoughMemoryError as exc:   # not a damaged file: one trained on a larger machine
                raise NotEnoughMemoryError(f"model file {path}: {exc}") from None
            except (PlygroundError, ValueError, TypeError, KeyError) as exc:   # options of the wrong type or range
                raise ModelFileError(f"model file {path} has an architecture this version cannot build: {exc}") from None
            check_arrays(path, {name[len("model/"):]: SimpleNamespace(shape=shape, dtype=dtype)
                                for name, (shape, dtype) in declared.items() if name.startswith("model/")},
                         network.model.state_dict())
            built["network"] = network

        arrays, meta = load_arrays(path, data, before=build)
        network = built["network"]
        model_arrays = {name[len("model/"):]: a for name, a in arrays.items() if name.startswith("model/")}
        network.model.load_state_dict(model_arrays)        # their shapes and kinds checked by build()
        network._restore_training_state(path, arrays, meta)
        network.metadata = dict(meta.get("user") or {})
        return network

    def _restore_training_state(self, path: Path, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
        optimizer_meta = meta.get("optimizer") or {}
        state: dict[int, dict[str, Any]] = {}
        for name, value in arrays.items():
            if name.startswith("optimizer/"):
                _, index, key = name.split("/", 2)
                state.setdefault(int(index), {})[key] = value
        for index, entry in (optimizer_meta.get("scalars") or {}).items():
            state.setdefault(int(index), {}).update(entry)
        try:
            self.optimizer.load_state_dict({"param_groups": optimizer_meta.get("param_groups") or
                                            [{k: v for k, v in g.items() if k != "params"}
                                             for g in self.optimizer.param_groups],
                                            "state": state})
            self.scheduler.load_state_dict(meta.get("scheduler") or {"last_epoch": 0})
        except (ValueError, KeyError, TypeError) as exc:
            raise ModelFileError(f"model file {path}: optimiser state does not fit the network ({exc})") from None
        self.train_steps = int(meta.get("train_steps", 0))


class ResNetNetwork(AutogradNetwork):
    name = "resnet"
    description = "residual conv policy/value network (AlphaZero style) for (C, H, W) board observations"
    shrink_hint = "use fewer channels/blocks"
    model_options = (
        Option("channels", int, 64, "filters per convolution", min=1),
        Option("blocks", int, 6, "residual blocks", min=0),
        Option("policy_channels", int, 2, "filters of the policy head's 1x1 convolution", min=1),
        Option("value_channels", int, 1, "filters of the value head's 1x1 convolution", min=1),
        Option("value_hidden", int, 64, "width of the value head's hidden layer", min=1),
    )
    options = model_options + TRAINING_OPTIONS + RUNTIME_OPTIONS
    model_class = PolicyValueResNet

    @classmethod
    def check_observation_shape(cls, observation_shape: tuple[int, ...]) -> None:
        super().check_observation_shape(observation_shape)
        if len(observation_shape) not in (2, 3):
            raise OptionError(f"network resnet needs (channels, height, width) or (height, width) observations, "
                              f"got shape {observation_shape}; use the mlp family for flat observations")

    @staticmethod
    def model_shape(observation_shape: tuple[int, ...]) -> tuple[int, int, int]:
        return observation_shape if len(observation_shape) == 3 else (1, *observation_shape)

    def model_input(self, observations: np.ndarray) -> np.ndarray:
        x = super().model_input(observations)
        return x[:, None] if x.ndim == 3 else x  # (B, H, W) boards get a channel axis


class MLPNetwork(AutogradNetwork):
    name = "mlp"
    description = "fully connected policy/value network for flat (or flattened) observations"
    shrink_hint = "use fewer hidden units/layers"
    model_options = (
        Option("hidden", int, 256, "width of each hidden layer", min=1),
        Option("layers", int, 2, "number of hidden layers", min=0),
    )
    options = model_options + TRAINING_OPTIONS + RUNTIME_OPTIONS
    model_class = PolicyValueMLP


FAMILIES: dict[str, type[AutogradNetwork]] = {ResNetNetwork.name: ResNetNetwork, MLPNetwork.name: MLPNetwork}


def _check_metadata(path: Path, meta: dict[str, Any]) -> None:
    """A ModelFileError naming the first field of a saved network's metadata that is not what
    :meth:`AutogradNetwork.save` writes (a hand-edited or crafted file), before anything is built from it."""
    for key in ("architecture", "config", "optimizer", "scheduler", "user"):
        if meta.get(key) is not None and not isinstance(meta[key], dict):
            raise ModelFileError(f"model file {path}: its metadata's {key!r} is {_short(meta[key])}, not a JSON object")
    arch = meta["architecture"]
    shape = arch.get("observation_shape")
    if not (isinstance(shape, list) and shape and all(_positive_int(n) for n in shape)):
        raise ModelFileError(f"model file {path}: its observation shape is {_short(shape)}, not a list of positive "
                             f"whole numbers")
    if not _positive_int(arch.get("num_actions")):
        raise ModelFileError(f"model file {path}: its number of actions is {_short(arch.get('num_actions'))}, "
                             f"not a positive whole number")
    if not (isinstance(meta.get("train_steps", 0), int) and meta.get("train_steps", 0) >= 0):
        raise ModelFileError(f"model file {path}: its train_steps is {_short(meta.get('train_steps'))}, not a "
                             f"whole number >= 0")


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _short(value: Any) -> str:
    """A metadata value as a message quotes it: at most 60 characters."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def load_network(path: Path, **expected: Any) -> AutogradNetwork:
    """Load a network of whatever family the file holds."""
    return AutogradNetwork.load(path, **expected)


def _runtime_options(family: type[AutogradNetwork], device: str, precision: str) -> dict[str, Any]:
    """The runtime options a loaded network of ``family`` is built with, checked (before any array exists)."""
    owner = f"network {family.name}"
    given = {"device": device, "precision": precision}
    declared = {opt.name: opt for opt in family.options}
    for name, value in given.items():
        if name not in declared and value != _RUNTIME_DEFAULTS[name]:
            raise DeviceError(f"{owner} has no option {name}: it computes with {name}={_RUNTIME_DEFAULTS[name]} only")
    runtime = {name: declared[name].check(value, owner) for name, value in given.items() if name in declared}
    check_runtime(runtime, owner)
    return runtime


def check_runtime(options: dict[str, Any], owner: str) -> Device:
    """The device of resolved ``options`` (DeviceError when it is not a device, or missing here), checked
    against the precision: numpy has no fast float16 matrix product, so half precision is a GPU's."""
    device = get_device(options.get("device", "cpu"), owner)
    if options.get("precision", "float32") == "float16" and not device.portable:
        raise DeviceError(f"{owner}: precision=float16 needs device=cuda (or cpu-portable, for tests); on the "
                          f"CPU inference runs in float32")
    return device


def _make_optimizer(model: Module, config: dict[str, Any]):
    params = list(model.parameters())
    kind = config["optimizer"]
    if kind == "sgd":
        return SGD(params, lr=config["lr"], momentum=config["momentum"], nesterov=config["nesterov"] and
                   config["momentum"] > 0, weight_decay=config["weight_decay"])
    optimizer_cls = Adam if kind == "adam" else AdamW
    return optimizer_cls(params, lr=config["lr"], weight_decay=config["weight_decay"])


def _make_scheduler(optimizer, config: dict[str, Any]) -> LRScheduler:
    schedule, steps = config["lr_schedule"], config["lr_steps"]
    if schedule == "cosine":
        return CosineAnnealingLR(optimizer, t_max=steps)
    if schedule == "step":
        return StepLR(optimizer, step_size=steps, gamma=0.1)
    return LambdaLR(optimizer, lambda step: 1.0)

