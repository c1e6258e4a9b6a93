"""Neural-network building blocks (PyTorch's names): modules, layers, initialisation."""
from . import init
from .layers import (BatchNorm1d, BatchNorm2d, Conv2d, Dense, Flatten, Identity, Linear, LogSoftmax, ReLU, Reshape,
                     ResidualBlock, Sigmoid, Softmax, Tanh)
from .losses import CrossEntropyLoss, MSELoss
from .module import Module, ModuleList, Parameter, Sequential

__all__ = ["BatchNorm1d", "BatchNorm2d", "Conv2d", "CrossEntropyLoss", "Dense", "Flatten", "Identity", "Linear",
           "LogSoftmax", "MSELoss", "Module", "ModuleList", "Parameter", "ReLU", "Reshape", "ResidualBlock",
           "Sequential", "Sigmoid", "Softmax", "Tanh", "init"]
