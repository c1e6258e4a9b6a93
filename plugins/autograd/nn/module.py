"""``Parameter``, ``Module`` and the containers ``Sequential`` and ``ModuleList``."""
from __future__ import annotations

from collections import OrderedDict
from typing import Any, Iterable, Iterator

import numpy as np

from ..backend import Device, DeviceError, device_name, device_of, get_device
from ..tensor import DEFAULT_DTYPE, Tensor


class Parameter(Tensor):
    """A tensor that is part of a model: it requires a gradient and is listed by ``Module.parameters()``."""

    __slots__ = ()

    def __init__(self, data: Any, requires_grad: bool = True, dtype: Any = None) -> None:
        super().__init__(data, requires_grad=requires_grad, dtype=dtype)

    def __repr__(self) -> str:
        return "Parameter" + super().__repr__()[len("Tensor"):]


class Module:
    """Base of every layer and model.  Assigning a Parameter or Module as an attribute registers it."""

    def __init__(self) -> None:
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "training", True)

    # ------------------------------------------------------------ registration
    def __setattr__(self, name: str, value: Any) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"{type(self).__name__}.__init__ must call super().__init__() before setting '{name}'")
        for registry in (self._parameters, self._buffers, self._modules):
            registry.pop(name, None)
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        # Only reached when normal lookup fails, i.e. for registered parameters, buffers and modules.
        for registry in ("_parameters", "_buffers", "_modules"):
            entries = self.__dict__.get(registry)
            if entries is not None and name in entries:
                return entries[name]
        raise AttributeError(f"'{type(self).__name__}' has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for registry in (self._parameters, self._buffers, self._modules):
            if name in registry:
                del registry[name]
                return
        object.__delattr__(self, name)

    def register_buffer(self, name: str, array: np.ndarray) -> None:
        """State that is saved with the model but not trained by gradients (batch-norm running statistics)."""
        self.__dict__.pop(name, None)
        self._buffers[name] = array

    # ----------------------------------------------------------------- forward
    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} does not define forward()")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    # --------------------------------------------------------------- traversal
    def named_modules(self, prefix: str = "") -> Iterator[tuple[str, "Module"]]:
        yield prefix, self
        for name, child in self._modules.items():
            yield from child.named_modules(f"{prefix}.{name}" if prefix else name)

    def modules(self) -> Iterator["Module"]:
        for _, module in self.named_modules():
            yield module

    def children(self) -> Iterator["Module"]:
        return iter(self._modules.values())

    def named_parameters(self, prefix: str = "") -> Iterator[tuple[str, Parameter]]:
        seen: set[int] = set()
        for module_name, module in self.named_modules(prefix):
            for name, param in module._parameters.items():
                if id(param) not in seen:  # a shared parameter is listed (and updated) once
                    seen.add(id(param))
                    yield (f"{module_name}.{name}" if module_name else name), param

    def parameters(self) -> Iterator[Parameter]:
        for _, param in self.named_parameters():
            yield param

    def named_buffers(self) -> Iterator[tuple[str, np.ndarray]]:
        for module_name, module in self.named_modules():
            for name, buffer in module._buffers.items():
                yield (f"{module_name}.{name}" if module_name else name), buffer

    def num_parameters(self) -> int:
        return sum(p.size for p in self.parameters())

    # ------------------------------------------------------------------- state
    def state_dict(self) -> "OrderedDict[str, np.ndarray]":
        """Copies of every parameter and buffer, by dotted name (on the module's device)."""
        state: OrderedDict[str, np.ndarray] = OrderedDict()
        for name, param in self.named_parameters():
            state[name] = param.data.copy()
        for name, buffer in self.named_buffers():
            state[name] = buffer.copy()
        return state

    def load_state_dict(self, state: dict[str, np.ndarray], strict: bool = True) -> None:
        """Copy values (arrays of any device) into the existing arrays, on their device; names and shapes
        must match (all of them if ``strict``)."""
        targets = {name: p.data for name, p in self.named_parameters()}
        targets.update(self.named_buffers())
        missing = [name for name in targets if name not in state]
        unexpected = [name for name in state if name not in targets]
        if strict and (missing or unexpected):
            parts = []
            if missing:
                parts.append("missing " + ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else ""))
            if unexpected:
                parts.append("unexpected " + ", ".join(unexpected[:5]) + (" ..." if len(unexpected) > 5 else ""))
            raise KeyError("state dict does not match the model: " + "; ".join(parts))
        for name, target in targets.items():
            if name in state:
                value = state[name]
                shape = tuple(value.shape) if hasattr(value, "shape") else np.shape(value)
                if shape != target.shape:
                    raise ValueError(f"'{name}' has shape {shape} in the state dict "
                                     f"but {target.shape} in the model")
        for name, target in targets.items():
            if name in state:
                target[...] = device_of(target).asarray(state[name])

    # ------------------------------------------------------------------- modes
    def train(self, mode: bool = True) -> "Module":
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self) -> "Module":
        return self.train(False)

    def zero_grad(self) -> None:
        for param in self.parameters():
            param.grad = None

    def to(self, target: Any = None, *, device: Any = None, dtype: Any = None) -> "Module":
        """Move parameters and buffers in place to a device (``"cuda"``, ``"cpu"``, ...) and/or convert them
        to a dtype (``float64`` for gradient checks), as PyTorch's ``module.to``: the one positional
        argument may be either.  Gradients are dropped."""
        if target is not None:
            if _is_device(target):
                device = target
            else:
                dtype = target
        place = None if device is None else get_device(device)
        dtype = None if dtype is None else np.dtype(dtype)

        def converted(array: Any) -> Any:
            if dtype is not None:
                array = array.astype(dtype)
            return array if place is None else place.asarray(array)

        for module in self.modules():
            for param in module._parameters.values():
                param.data = converted(param.data)
                param.grad = None
            for name, buffer in list(module._buffers.items()):
                module._buffers[name] = converted(buffer)
        return self

    def double(self) -> "Module":
        return self.to(np.float64)

    def float(self) -> "Module":
        return self.to(DEFAULT_DTYPE)

    # -------------------------------------------------------------------- repr
    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        if not self._modules:
            return f"{type(self).__name__}({self.extra_repr()})"
        lines = [f"{type(self).__name__}("]
        for name, child in self._modules.items():
            body = repr(child).replace("\n", "\n  ")
            lines.append(f"  ({name}): {body}")
        lines.append(")")
        return "\n".join(lines)


def _is_device(value: Any) -> bool:
    """Whether ``Module.to``'s argument names a device (else it is a dtype)."""
    if isinstance(value, Device):
        return True
    if not isinstance(value, str):
        return False
    try:
        device_name(value)
    except DeviceError:
        return False
    return True


class _ModuleSequence(Module):
    """Modules kept in order under the names "0", "1", ...: indexing, length, iteration, append."""

    def append(self, module: Module) -> "_ModuleSequence":
        setattr(self, str(len(self._modules)), module)
        return self

    def __getitem__(self, index: int) -> Module:
        return list(self._modules.values())[index]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())


class Sequential(_ModuleSequence):
    """Applies its modules in order."""

    def __init__(self, *modules: Module) -> None:
        super().__init__()
        for module in modules:
            self.append(module)

    def forward(self, x: Any) -> Any:
        for module in self._modules.values():
            x = module(x)
        return x


class ModuleList(_ModuleSequence):
    """A list of modules whose parameters are registered (a plain list would hide them)."""

    def __init__(self, modules: Iterable[Module] = ()) -> None:
        super().__init__()
        for module in modules:
            self.append(module)
