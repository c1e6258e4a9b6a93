"""Every differentiable operation; each returns a new :class:`Tensor` joined to the graph."""
from .activations import log_softmax, relu, sigmoid, softmax, tanh
from .arithmetic import (abs, add, astype, clip, div, exp, linear, log, matmul, mul, neg, pow, sparse_linear,
                         sqrt, sub, to_device)
from .conv import conv2d
from .normalization import batch_norm
from .reductions import max, mean, min, sum, var
from .shape import (broadcast_to, cat, concatenate, flatten, gather, getitem, pad, permute, reshape, squeeze,
                    stack, transpose, unsqueeze)

clamp = clip

__all__ = ["abs", "add", "astype", "batch_norm", "broadcast_to", "cat", "clamp", "clip", "concatenate", "conv2d",
           "div", "exp", "flatten", "gather", "getitem", "linear", "log", "log_softmax", "matmul", "max", "mean",
           "min", "mul", "neg", "pad", "permute", "pow", "relu", "reshape", "sigmoid", "softmax", "sparse_linear", "sqrt", "squeeze",
           "stack", "sub", "sum", "tanh", "to_device", "transpose", "unsqueeze", "var"]
