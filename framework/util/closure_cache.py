"""On-disk numba caching for a compiled loop that is a closure over a game's kernel functions.

Numba caches a closure under a hash of its cell contents, pickled.  A cell
holding a compiled function pickles with that function's per-process UUID, so
the key changes every run and the loop (MCTS's simulation loop) is compiled
again in every process -- seconds before a bot's first move.  This cache keys
the cells by what they are instead: for a compiled function its module,
qualified name, its own closure values, the compiled functions it names as
globals, and the size and modification time of their source files (so editing
the kernels, or a function they call from another file, still recompiles);
other values by ``repr``.
"""
from __future__ import annotations

import hashlib
import os

from numba.core.caching import FunctionCache
from numba.core.dispatcher import Dispatcher


class StableClosureCache(FunctionCache):
    def _index_key(self, sig, codegen):
        codebytes = self._py_func.__code__.co_code
        cells = describe_cells(self._py_func) + "|" + describe_callees(self._py_func)
        hasher = lambda data: hashlib.sha256(data).hexdigest()  # noqa: E731 - as numba's own key
        return (sig, codegen.magic_tuple(), (hasher(codebytes), hasher(cells.encode())))


def describe_cells(py_func, depth: int = 0) -> str:
    """A description of ``py_func``'s closure values that is the same in every process."""
    if py_func.__closure__ is None or depth > 4:
        return ""
    return "|".join(_describe(cell.cell_contents, depth) for cell in py_func.__closure__)


def describe_callees(py_func, depth: int = 0) -> str:
    """A description of the compiled functions ``py_func`` names as globals (those it calls)."""
    if depth > 4:
        return ""
    return ",".join(_describe(py_func.__globals__[name], depth) for name in py_func.__code__.co_names
                    if isinstance(py_func.__globals__.get(name), Dispatcher))


def _describe(value, depth: int) -> str:
    if isinstance(value, Dispatcher):
        func = value.py_func
        return (f"{func.__module__}.{func.__qualname__}@{_stamp(func)}({describe_cells(func, depth + 1)})"
                f"[{describe_callees(func, depth + 1)}]")
    return repr(value)


def _stamp(func) -> str:
    """The size and modification time of ``func``'s source file."""
    try:
        stat = os.stat(func.__code__.co_filename)
    except OSError:
        return "?"
    return f"{stat.st_size}:{stat.st_mtime_ns}"


def on_disk(dispatcher: Dispatcher) -> bool:
    """Whether ``dispatcher`` (one :func:`cache_on_disk` gave the stable cache) has a compiled version in the
    on-disk cache for this machine and this source, so that its first call loads rather than compiles.  False
    where that cannot be told (another numba's cache layout)."""
    cache = getattr(dispatcher, "_cache", None)
    if not isinstance(cache, StableClosureCache):
        return False
    try:
        index = cache._cache_file._load_index()       # {} when missing or stale (another source stamp)
        wanted = cache._index_key(None, dispatcher.targetctx.codegen())[1:]
    except Exception:  # noqa: BLE001 - numba's internals differ: say not cached (the caller compiles as before)
        return False
    return any(tuple(key[1:]) == wanted for key in index)


def cache_on_disk(dispatcher: Dispatcher) -> Dispatcher:
    """Give ``dispatcher`` (compiled with ``cache=False``, not yet called) the stable on-disk cache."""
    dispatcher._cache = StableClosureCache(dispatcher.py_func)
    return dispatcher
