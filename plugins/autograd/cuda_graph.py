"""A training step replayed as one CUDA graph (CuPy on a GPU only).

Our engine builds its autograd graph in Python, op by op: one training step of
the bundled ResNet launches several hundred kernels, and at batch 1,024 on an
H200 the host spends longer launching them than the GPU spends running them.
A CUDA graph records the launches once (stream capture) and replays them with
one call, as PyTorch's ``torch.cuda.graphs`` does.

A replay reads and writes the device addresses fixed at capture time, with the
scalars fixed then too (learning rate, momentum).  So :class:`StepGraph`
replays only while everything the step touches is where and as it was:

* the inputs are copied into buffers of its own, allocated once per shape;
* ``state_key`` (given by the caller) names the addresses of the weights,
  buffers and optimiser state and every scalar the step uses; a step whose key
  differs from the one captured runs eagerly (op by op, as without graphs) and
  a new graph is captured once two eager steps in a row leave the key as it was
  (the first step of an optimiser makes its buffers, so the first graph comes
  on the third step);
* everything the step allocates comes from a memory pool of its own, used by
  nothing else, so no other array can take memory a replay writes;
* the step runs on a stream of its own, ordered after the caller's stream's
  earlier work, and is finished when :meth:`StepGraph.run` returns (the
  caller reads its losses);
* its matrix products go through a cuBLAS handle of its own while it is
  captured (CuPy's refuse to be captured; ``ops/cublas.py``).

A step that cannot be captured (one that waits for the host, such as clipping
by the gradient norm, or an optimiser whose scalars change every step, as
Adam's step count does) never matches its key and simply runs eagerly; a
capture that fails turns graphs off for that network, with the reason in
:attr:`StepGraph.failure`.  ``PLYGROUND_CUDA_GRAPHS=0`` turns them off.
"""
from __future__ import annotations

import os
from typing import Any, Callable, Hashable

import numpy as np

from .ops import cublas, cuda_kernels

ENABLED = os.environ.get("PLYGROUND_CUDA_GRAPHS", "1").strip().lower() not in ("0", "false", "no", "off")


def array_key(array: Any) -> tuple:
    """What a captured step depends on of a device array: its address, shape and dtype."""
    return (array.data.ptr, array.shape, array.dtype.str)


class StepGraph:
    """Runs ``body(*inputs) -> output`` on a CuPy device, eagerly or as a replayed CUDA graph.

    ``body`` takes device arrays (this object's input buffers) and returns one
    device array (the step's read-out, e.g. its losses); it may allocate, but
    must keep every array that outlives the step in place (weights, statistics
    and optimiser buffers updated in place, not replaced).
    """

    def __init__(self, cupy: Any, body: Callable[..., Any]) -> None:
        self.cupy, self.body = cupy, body
        self.stream = cupy.cuda.Stream(non_blocking=True)
        self.pool = cupy.cuda.MemoryPool()
        self.inputs: list[Any] = []
        self.graph = None
        self.graph_key: Hashable = None
        self.stable_key: Hashable = None     # the key two eager steps in a row left unchanged
        self.output = None
        self.failure: str | None = None
        self.blas: cublas.Handle | None = None       # the products' cuBLAS handle while capturing
        self.replays = self.captures = self.eager_steps = 0

    def run(self, host_inputs: list[np.ndarray], state_key: Callable[[], Hashable]) -> np.ndarray:
        """One step on ``host_inputs``; its output, on the host."""
        cupy = self.cupy
        caller = cupy.cuda.get_current_stream()
        self.stream.wait_event(caller.record())            # after the caller's work on the weights
        shapes = tuple((a.shape, a.dtype.str) for a in host_inputs)
        with self.stream, cupy.cuda.using_allocator(self.pool.malloc):
            if tuple((a.shape, a.dtype.str) for a in self.inputs) != shapes:
                self._drop_graph()
                self.inputs = [cupy.empty(a.shape, a.dtype) for a in host_inputs]
            for buffer, host in zip(self.inputs, host_inputs):
                buffer.set(np.ascontiguousarray(host), stream=self.stream)
            key = (shapes, state_key())
            if self.graph is not None and key == self.graph_key:
                self.graph.launch(self.stream)
                self.replays += 1
                output = self.output
            elif ENABLED and self.failure is None and key == self.stable_key:
                output = self._capture(key)
            else:
                self._drop_graph()
                output = self.body(*self.inputs)
                self.eager_steps += 1
                self.stable_key = key if state_key() == key[1] else None
            result = output.get(stream=self.stream)
        caller.wait_event(self.stream.record())
        return result

    def _capture(self, key: Hashable) -> Any:
        self._drop_graph()
        try:
            if self.blas is None:
                self.blas = cublas.Handle(self.cupy, self.stream)
            self.stream.begin_capture()
            try:
                with cuda_kernels.capturing_with(self.blas):
                    output = self.body(*self.inputs)
            finally:
                graph = self.stream.end_capture()
        except Exception as exc:       # noqa: BLE001 - any failure: this step runs eagerly, graphs stay off
            self.failure = f"{type(exc).__name__}: {exc}"
            output = self.body(*self.inputs)
            self.eager_steps += 1
            return output
        self.graph, self.graph_key, self.output = graph, key, output
        self.captures += 1
        graph.launch(self.stream)       # a capture records the step without running it
        self.replays += 1
        return output

    def _drop_graph(self) -> None:
        if self.graph is not None:
            self.graph = self.output = self.graph_key = None
            self.stream.synchronize()
            self.pool.free_all_blocks()

    def describe(self) -> str:
        """How the steps ran, for benchmarks and logs."""
        text = f"{self.captures} capture(s), {self.replays} replayed step(s), {self.eager_steps} eager step(s)"
        return text + (f"; graphs off: {self.failure}" if self.failure else "")
