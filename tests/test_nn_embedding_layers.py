"""Embedding and EmbeddingBag (and F.embedding_bag) against torch: initial tables under a
seed, reprs, lookups and gradients, padding rows, max_norm renormalising in place,
from_pretrained, bags by offsets, modes, per-sample weights, errors; and torch-free
recorded reprs, invariants and gradcheck."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import chainrule
from chainrule.autograd import gradcheck, gradgradcheck
from nn_compare import assert_same, error, outcome


def table(rows: int = 6, cols: int = 3, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((rows, cols))


def arr(t: Any) -> Any:
    return None if t is None else t.detach().numpy().copy()


def lookup(build: Callable[[Any], Any], *inputs: Any) -> Callable[[Any], Any]:
    """A scenario: the layer (built under seed 0) applied, then a backward; returns the
    initial table, the repr, the output, the table's gradient and its value after."""

    def scenario(m: Any) -> Any:
        m.manual_seed(0)
        layer = build(m)
        start = arr(layer.weight)
        args = [m.tensor(a) if a is not None else None for a in inputs]
        if len(args) > 2 and args[2] is not None:
            args[2].requires_grad_()
        out = layer(*args)
        out.backward(
            m.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape))).to(out.dtype)
        )
        psw = args[2].grad if len(args) > 2 and args[2] is not None else None
        return start, repr(layer), out, arr(layer.weight.grad), arr(layer.weight), arr(psw)

    return scenario


IDX = np.array([[0, 2, 4], [4, 3, 2]])
FLAT = IDX.ravel()
EMBEDDINGS = [
    ("plain", lambda m: m.nn.Embedding(6, 3), IDX),
    ("padding", lambda m: m.nn.Embedding(6, 3, padding_idx=2), IDX),
    ("padding_negative", lambda m: m.nn.Embedding(6, 4, padding_idx=-2), IDX),
    ("max_norm", lambda m: m.nn.Embedding(6, 3, max_norm=1.0), IDX),
    ("max_norm_l1", lambda m: m.nn.Embedding(6, 3, max_norm=1.5, norm_type=1.0), IDX),
    ("freq", lambda m: m.nn.Embedding(6, 3, scale_grad_by_freq=True), np.array([1, 1, 1, 2, 5])),
    ("double", lambda m: m.nn.Embedding(5, 2, dtype=m.float64), np.array([4, 0, 0])),
    (
        "pretrained",
        lambda m: m.nn.Embedding.from_pretrained(m.tensor(table()), freeze=False, padding_idx=1),
        np.array([1, 0, 1]),
    ),
]


@pytest.mark.parametrize(("name", "build", "idx"), EMBEDDINGS, ids=[e[0] for e in EMBEDDINGS])
def test_embedding_matches_torch(torch: Any, name: str, build: Any, idx: Any) -> None:
    scenario = lookup(build, idx)
    # torch divides by the frequency where chainrule multiplies by its inverse (an ulp).
    tol = 3e-7 if name == "freq" else 0.0
    assert_same(outcome(scenario, chainrule), outcome(scenario, torch), rtol=tol)


def test_embedding_frozen_and_state(torch: Any) -> None:
    def scenario(m: Any) -> Any:
        e = m.nn.Embedding.from_pretrained(m.tensor(table()))
        bag = m.nn.EmbeddingBag.from_pretrained(m.tensor(table()), freeze=False, mode="sum")
        return (
            e.weight.requires_grad,
            bag.weight.requires_grad,
            list(e.state_dict()),
            repr(e),
            repr(bag),
            repr(m.nn.EmbeddingBag(5, 2, max_norm=2.0, norm_type=1.0, padding_idx=-1)),
            repr(m.nn.Embedding(5, 2, max_norm=2.0, scale_grad_by_freq=True, sparse=True)),
        )

    assert_same(outcome(scenario, chainrule), outcome(scenario, torch))


BAGS: list[tuple[str, Callable[[Any], Any], tuple[Any, ...]]] = [
    ("mean_2d", lambda m: m.nn.EmbeddingBag(6, 3), (IDX,)),
    (
        "sum_offsets",
        lambda m: m.nn.EmbeddingBag(6, 3, mode="sum"),
        (IDX.ravel(), np.array([0, 1, 1, 4])),
    ),
    (
        "max_offsets",
        lambda m: m.nn.EmbeddingBag(6, 3, mode="max"),
        (IDX.ravel(), np.array([0, 2, 2])),
    ),
    (
        "mean_padding",
        lambda m: m.nn.EmbeddingBag(6, 3, padding_idx=4),
        (IDX.ravel(), np.array([0, 3, 4])),
    ),
    (
        "max_padding",
        lambda m: m.nn.EmbeddingBag(6, 3, mode="max", padding_idx=2),
        (IDX.ravel(), np.array([0, 1, 3])),
    ),
    (
        "last_offset",
        lambda m: m.nn.EmbeddingBag(6, 3, mode="sum", include_last_offset=True),
        (IDX.ravel(), np.array([0, 2, 6])),
    ),
    (
        "per_sample",
        lambda m: m.nn.EmbeddingBag(6, 3, mode="sum", padding_idx=3),
        (IDX.ravel(), np.array([0, 4]), np.linspace(0.5, 2, 6, dtype=np.float32)),
    ),
    (
        "per_sample_2d",
        lambda m: m.nn.EmbeddingBag(6, 3, mode="sum"),
        (IDX, None, np.ones((2, 3)) * 0.5),
    ),
    ("max_norm", lambda m: m.nn.EmbeddingBag(6, 3, max_norm=0.5), (IDX,)),
]


@pytest.mark.parametrize(("name", "build", "inputs"), BAGS, ids=[b[0] for b in BAGS])
def test_embedding_bag_matches_torch(torch: Any, name: str, build: Any, inputs: Any) -> None:
    scenario = lookup(build, *inputs)
    got, want = outcome(scenario, chainrule), outcome(scenario, torch)
    assert_same(got, want, rtol=1e-12, atol=1e-7)  # (torch leaves ~1e-9 in padding rows)


def test_embedding_bag_graph(torch: Any) -> None:
    def scenario(m: Any) -> Any:
        w = m.tensor(table(), requires_grad=True)
        out = m.nn.functional.embedding_bag(m.tensor([1, 2, 3]), w, m.tensor([0, 1]))
        # (torch lists a None for the absent per_sample_weights; chainrule lists only inputs)
        return out.grad_fn.name(), out.grad_fn.next_functions[0][0].name()

    assert outcome(scenario, chainrule) == outcome(scenario, torch)


ERRORS: dict[str, Callable[[Any], Any]] = {
    "padding_range": lambda m: m.nn.Embedding(4, 2, padding_idx=4),
    "padding_range_negative": lambda m: m.nn.Embedding(4, 2, padding_idx=-5),
    "bag_padding_range": lambda m: m.nn.EmbeddingBag(4, 2, padding_idx=7),
    "pretrained_1d": lambda m: m.nn.Embedding.from_pretrained(m.ones(3)),
    "weight_shape": lambda m: m.nn.Embedding(4, 2, _weight=m.ones(3, 2)),
    "index_range": lambda m: m.nn.Embedding(4, 2)(m.tensor([4])),
    "float_index": lambda m: m.nn.Embedding(4, 2)(m.tensor([1.0])),
    "bag_mode": lambda m: m.nn.EmbeddingBag(4, 2, mode="min")(m.tensor([[1]])),
    "bag_offsets_2d": lambda m: m.nn.EmbeddingBag(4, 2)(m.tensor([[1]]), m.tensor([0])),
    "bag_no_offsets": lambda m: m.nn.EmbeddingBag(4, 2)(m.tensor([1])),
    "bag_3d": lambda m: m.nn.EmbeddingBag(4, 2)(m.tensor([[[1]]])),
    "bag_first_offset": lambda m: m.nn.EmbeddingBag(4, 2)(m.tensor([1, 2]), m.tensor([1])),
    "bag_last_offset": lambda m: m.nn.EmbeddingBag(4, 2)(m.tensor([1, 2]), m.tensor([0, 3])),
    "bag_index": lambda m: m.nn.EmbeddingBag(4, 2)(m.tensor([1, 9]), m.tensor([0])),
    "bag_psw_mode": lambda m: m.nn.EmbeddingBag(4, 2)(m.tensor([1]), m.tensor([0]), m.ones(1)),
    "bag_psw_shape": lambda m: m.nn.EmbeddingBag(4, 2, mode="sum")(
        m.tensor([1]), m.tensor([0]), m.ones(2)
    ),
    "bag_max_freq": lambda m: m.nn.EmbeddingBag(4, 2, mode="max", scale_grad_by_freq=True)(
        m.tensor([[1]])
    ),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(torch: Any, name: str) -> None:
    got = error(lambda: ERRORS[name](chainrule))
    want = error(lambda: ERRORS[name](torch))
    assert want is not None and got is not None
    assert (got[0], got[1].replace("chainrule", "torch")) == want


def test_recorded() -> None:
    chainrule.manual_seed(0)
    e = chainrule.nn.Embedding(6, 3, padding_idx=-1)
    assert repr(e) == "Embedding(6, 3, padding_idx=5)"
    assert list(e.state_dict()) == ["weight"]
    np.testing.assert_array_equal(e.weight[5].detach().numpy(), np.zeros(3, np.float32))
    np.testing.assert_allclose(e.weight[0].detach().numpy(), [-1.1258, -1.1524, 0.5667], atol=1e-4)
    assert repr(chainrule.nn.EmbeddingBag(4, 2, mode="max")) == "EmbeddingBag(4, 2, mode='max')"
    assert error(lambda: chainrule.nn.Embedding(4, 2, padding_idx=4)) == (
        "AssertionError",
        "Padding_idx must be within num_embeddings",
    )
    # max_norm renormalises the looked-up rows in place, outside the graph.
    w = chainrule.tensor(table() * 3)
    e = chainrule.nn.Embedding.from_pretrained(w, max_norm=1.0)
    e(chainrule.tensor([0, 1]))
    norms = np.linalg.norm(w.numpy(), axis=1)
    assert np.all(norms[:2] <= 1.0 + 1e-6) and np.all(norms[2:] > 1.0)


def test_bag_invariants() -> None:
    w = chainrule.tensor(table())
    idx = chainrule.tensor([0, 1, 2, 3, 4, 5])
    offsets = chainrule.tensor([0, 2, 2])
    F = chainrule.nn.functional
    total = F.embedding_bag(idx, w, offsets, mode="sum").numpy()
    np.testing.assert_allclose(total, [table()[:2].sum(0), np.zeros(3), table()[2:].sum(0)])
    mean = F.embedding_bag(idx, w, offsets, mode="mean").numpy()
    np.testing.assert_allclose(mean[2], table()[2:].mean(0))
    largest = F.embedding_bag(idx, w, offsets, mode="max").numpy()
    np.testing.assert_allclose(largest[0], table()[:2].max(0))


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_bag_gradcheck(mode: str) -> None:
    w = chainrule.tensor(table(), requires_grad=True)
    idx, offsets = chainrule.tensor([0, 1, 5, 3, 1]), chainrule.tensor([0, 2, 2])

    def fn(weight: Any) -> Any:
        return chainrule.nn.functional.embedding_bag(idx, weight, offsets, mode=mode, padding_idx=3)

    assert gradcheck(fn, (w,))
    assert gradgradcheck(fn, (w,))


def test_bag_per_sample_weights_gradcheck() -> None:
    w = chainrule.tensor(table(), requires_grad=True)
    psw = chainrule.tensor(np.linspace(0.5, 1.5, 5), requires_grad=True)
    idx, offsets = chainrule.tensor([0, 1, 5, 3, 1]), chainrule.tensor([0, 2])

    def fn(weight: Any, weights: Any) -> Any:
        return chainrule.nn.functional.embedding_bag(
            idx, weight, offsets, mode="sum", per_sample_weights=weights
        )

    assert gradcheck(fn, (w, psw))
    assert gradgradcheck(fn, (w, psw))
