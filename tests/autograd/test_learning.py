"""Real learning: XOR with an MLP, handwritten digits with a small convnet."""
import numpy as np
import pytest

from plyground.plugins.autograd import Tensor, manual_seed, nn, no_grad, optim
from plyground.plugins.autograd import functional as F


def test_mlp_learns_xor():
    manual_seed(0)
    x = Tensor(np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=np.float32))
    y = np.array([0, 1, 1, 0])
    model = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 2, init="xavier"))
    opt = optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
    for _ in range(300):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
    assert loss.item() < 0.05
    assert (model(x).data.argmax(axis=1) == y).all()


def digits_split():
    datasets = pytest.importorskip("sklearn.datasets")
    digits = datasets.load_digits()  # bundled with scikit-learn: no download
    images = (digits.images / 16.0).astype(np.float32)[:, None]  # (1797, 1, 8, 8) in [0, 1]
    order = np.random.default_rng(0).permutation(len(images))
    test, train = order[:450], order[450:]
    return images[train], digits.target[train], images[test], digits.target[test]


def test_convnet_learns_digits():
    manual_seed(0)
    train_x, train_y, test_x, test_y = digits_split()
    model = nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU(),
        nn.Conv2d(32, 64, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(64), nn.ReLU(),  # 8x8 -> 4x4
        nn.Flatten(), nn.Linear(64 * 16, 10, init="xavier"))
    opt = optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-3)
    schedule = optim.lr_scheduler.CosineAnnealingLR(opt, t_max=6)
    rng = np.random.default_rng(0)
    for _epoch in range(6):
        model.train()
        for batch in np.array_split(rng.permutation(len(train_x)), len(train_x) // 64):
            opt.zero_grad()
            F.cross_entropy(model(Tensor(train_x[batch])), train_y[batch]).backward()
            opt.step()
        schedule.step()
    model.eval()
    with no_grad():
        predicted = model(Tensor(test_x)).data.argmax(axis=1)
    accuracy = (predicted == test_y).mean()
    assert accuracy >= 0.97, f"test accuracy {accuracy:.3f}"
