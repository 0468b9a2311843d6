"""Train a small network on handwritten digits, written exactly as for PyTorch.

    pip install -e ".[examples]" && python examples/train_digits.py

The data is scikit-learn's bundled 8x8 digits (1,797 images, nothing downloaded). The
script trains with `nn`, `optim` and a `DataLoader`, shows a progress bar, prints the
test accuracy, and writes into `--out` (default `digits_output/`): `loss_curve.png`,
and `graph.html`, the backward graph of one training step with each layer drawn as a
box (open it in a browser). Write `torch` for `chainrule` in the imports and the same
script trains under PyTorch, from the same initial weights through the same shuffles.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # draw to a file; no window needed
import matplotlib.pyplot as plt
from sklearn.datasets import load_digits
from tqdm import tqdm

import chainrule as torch
from chainrule import nn, optim
from chainrule.utils.data import DataLoader, TensorDataset, random_split


def make_loaders(batch_size: int) -> tuple[DataLoader, DataLoader]:
    digits = load_digits()
    images = torch.tensor(digits.data, dtype=torch.float32) / 16  # pixels in [0, 1]
    labels = torch.tensor(digits.target)
    train_set, test_set = random_split(TensorDataset(images, labels), [0.8, 0.2])
    train = DataLoader(train_set, batch_size=batch_size, shuffle=True)
    test = DataLoader(test_set, batch_size=256)
    return train, test


def accuracy(model: nn.Module, loader: DataLoader) -> float:
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for images, labels in loader:
            correct += (model(images).argmax(dim=1) == labels).sum().item()
            total += len(labels)
    return correct / total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--out", type=Path, default=Path("digits_output"))
    args = parser.parse_args()

    torch.manual_seed(0)
    train_loader, test_loader = make_loaders(args.batch_size)
    model = nn.Sequential(
        nn.Linear(64, 128),
        nn.ReLU(),
        nn.Linear(128, 64),
        nn.ReLU(),
        nn.Linear(64, 10),
    )
    loss_fn = nn.CrossEntropyLoss()
    optimizer = optim.Adam(model.parameters(), lr=1e-3)
    print(model)

    losses = []
    for epoch in range(args.epochs):
        model.train()
        batches = tqdm(train_loader, desc=f"epoch {epoch + 1}/{args.epochs}", leave=False)
        for images, labels in batches:
            optimizer.zero_grad()
            loss = loss_fn(model(images), labels)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            batches.set_postfix(loss=f"{loss.item():.4f}")
        print(f"epoch {epoch + 1:2d}: loss {losses[-1]:.4f}")
    print(f"test accuracy: {accuracy(model, test_loader):.1%}")

    args.out.mkdir(parents=True, exist_ok=True)
    figure, axes = plt.subplots(figsize=(6, 3.5))
    axes.plot(losses, linewidth=0.8)
    axes.set_xlabel("training step")
    axes.set_ylabel("cross-entropy loss")
    axes.set_title("A small network learning handwritten digits")
    figure.tight_layout()
    figure.savefig(args.out / "loss_curve.png", dpi=120)
    draw_graph(model, loss_fn, train_loader, args.out / "graph.html")
    print(f"wrote {args.out / 'loss_curve.png'} and {args.out / 'graph.html'}")


def draw_graph(model: nn.Module, loss_fn: nn.Module, loader: DataLoader, path: Path) -> None:
    """The backward graph of one step, each layer a box (chainrule only)."""
    if torch.__name__ != "chainrule":
        return  # run under PyTorch: there is no chainrule.viz to draw with
    from chainrule import viz

    images, labels = next(iter(loader))
    with viz.record_modules(model) as calls:  # which layer made which node
        loss = loss_fn(model(images), labels)
    viz.to_html(loss, path, names={"loss": loss}, modules=calls)


if __name__ == "__main__":
    main()
