"""The loss layers (nn.L1Loss ... nn.CTCLoss) and the distance layers: reprs, buffers,
values and gradients, against PyTorch where it is installed and against recorded values
and finite differences always."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import chainrule
from chainrule.autograd import gradcheck
from nn_compare import assert_same, outcome

nn = chainrule.nn
F = chainrule.nn.functional


def _pair(m: Any, dt: Any) -> tuple[Any, ...]:
    return m.randn(4, 3, dtype=dt), m.randn(4, 3, dtype=dt)


def _signs(m: Any, dt: Any) -> tuple[Any, ...]:
    return m.randn(4, 3, dtype=dt), m.randn(4, 3, dtype=dt).sign()


def _probabilities(m: Any, dt: Any) -> tuple[Any, ...]:
    return m.rand(4, 3, dtype=dt) * 0.9 + 0.05, m.rand(4, 3, dtype=dt)


def _log_probabilities(m: Any, dt: Any) -> tuple[Any, ...]:
    return m.randn(4, 3, dtype=dt).log_softmax(1), m.randn(4, 3, dtype=dt).softmax(1)


def _classes(m: Any, dt: Any) -> tuple[Any, ...]:
    return m.randn(4, 3, dtype=dt), m.tensor([0, 2, 1, 2])


def _image_classes(m: Any, dt: Any) -> tuple[Any, ...]:
    return m.randn(2, 3, 2, 2, dtype=dt), m.tensor([[[0, 1], [2, 1]], [[1, 1], [0, 2]]])


def _label_lists(m: Any, dt: Any) -> tuple[Any, ...]:
    return m.randn(4, 3, dtype=dt), m.tensor([[0, 2, -1], [1, -1, 0], [2, 1, 0], [-1, 0, 0]])


def _rankings(m: Any, dt: Any) -> tuple[Any, ...]:
    return m.randn(5, dtype=dt), m.randn(5, dtype=dt), m.tensor([1.0, -1, 1, -1, 1], dtype=dt)


def _embeddings(m: Any, dt: Any) -> tuple[Any, ...]:
    return m.randn(4, 3, dtype=dt), m.randn(4, 3, dtype=dt), m.tensor([1.0, -1, 1, -1], dtype=dt)


def _triplets(m: Any, dt: Any) -> tuple[Any, ...]:
    return m.randn(4, 3, dtype=dt), m.randn(4, 3, dtype=dt), m.randn(4, 3, dtype=dt)


def _counts(m: Any, dt: Any) -> tuple[Any, ...]:
    return m.randn(4, 3, dtype=dt), m.tensor(
        [[0.0, 1, 2], [3, 0, 1], [1, 4, 2], [0, 0, 5]], dtype=dt
    )


def _gaussian(m: Any, dt: Any) -> tuple[Any, ...]:
    return m.randn(4, 3, dtype=dt), m.randn(4, 3, dtype=dt), m.rand(4, 1, dtype=dt) + 0.1


def _alignments(m: Any, dt: Any) -> tuple[Any, ...]:
    log_probs = m.randn(6, 3, 5, dtype=dt).log_softmax(2)
    targets = m.tensor([[1, 2, 2], [3, 1, 0], [4, 4, 4]])
    return log_probs, targets, m.tensor([6, 5, 3]), m.tensor([3, 2, 3])


# (constructor as text, inputs: a function of (library, dtype); the first ones get gradients).
LOSSES: list[tuple[str, Callable[..., tuple[Any, ...]], int]] = [
    ("L1Loss()", _pair, 2),
    ("L1Loss(reduction='none')", _pair, 2),
    ("MSELoss(reduction='sum')", _pair, 2),
    ("MSELoss(size_average=False)", _pair, 2),
    ("HuberLoss(delta=0.5)", _pair, 2),
    ("SmoothL1Loss(beta=0.5)", _pair, 2),
    ("SoftMarginLoss()", _signs, 1),
    ("BCELoss()", _probabilities, 2),
    ("BCELoss(weight=m.tensor([1.0, 2.0, 0.5], dtype=dt), reduction='sum')", _probabilities, 1),
    ("BCEWithLogitsLoss(pos_weight=m.tensor([1.0, 3.0, 0.5], dtype=dt))", _probabilities, 2),
    ("BCEWithLogitsLoss(weight=m.tensor([2.0, 1.0, 0.5], dtype=dt))", _probabilities, 1),
    ("KLDivLoss(reduction='batchmean')", _log_probabilities, 2),
    ("KLDivLoss(reduction='sum', log_target=True)", _log_probabilities, 2),
    ("KLDivLoss()", _log_probabilities, 2),
    ("NLLLoss()", _classes, 1),
    ("NLLLoss(weight=m.tensor([1.0, 2.0, 0.5], dtype=dt), ignore_index=1)", _classes, 1),
    ("NLLLoss(reduce=False)", _image_classes, 1),
    ("NLLLoss2d()", _image_classes, 1),
    ("CrossEntropyLoss()", _classes, 1),
    (
        "CrossEntropyLoss(weight=m.tensor([1.0, 2.0, 0.5], dtype=dt), label_smoothing=0.2)",
        _classes,
        1,
    ),
    ("CrossEntropyLoss(ignore_index=2, reduction='none')", _image_classes, 1),
    ("CrossEntropyLoss(label_smoothing=0.1)", _log_probabilities, 2),
    ("PoissonNLLLoss()", _counts, 1),
    ("PoissonNLLLoss(log_input=False, full=True, reduction='sum')", _probabilities, 1),
    ("GaussianNLLLoss(full=True)", _gaussian, 3),
    ("GaussianNLLLoss(eps=0.5, reduction='none')", _gaussian, 3),
    ("MultiLabelSoftMarginLoss(weight=m.tensor([1.0, 2.0, 0.5], dtype=dt))", _probabilities, 1),
    ("MultiLabelMarginLoss()", _label_lists, 1),
    ("MultiLabelMarginLoss(reduction='none')", _label_lists, 1),
    ("MultiMarginLoss()", _classes, 1),
    ("MultiMarginLoss(p=2, margin=0.5, weight=m.tensor([1.0, 2.0, 0.5], dtype=dt))", _classes, 1),
    ("MarginRankingLoss(margin=0.2)", _rankings, 2),
    ("HingeEmbeddingLoss(margin=0.5, reduction='sum')", _signs, 1),
    ("CosineEmbeddingLoss(margin=0.1)", _embeddings, 2),
    ("TripletMarginLoss()", _triplets, 3),
    ("TripletMarginLoss(margin=0.5, p=1.0, swap=True, reduction='none')", _triplets, 3),
    ("TripletMarginWithDistanceLoss()", _triplets, 3),
    (
        "TripletMarginWithDistanceLoss(distance_function=m.nn.CosineSimilarity(), swap=True)",
        _triplets,
        3,
    ),
    ("CTCLoss()", _alignments, 1),
    ("CTCLoss(blank=0, reduction='sum', zero_infinity=True)", _alignments, 1),
    ("CTCLoss(reduction='none')", _alignments, 1),
    ("PairwiseDistance()", _pair, 2),
    ("PairwiseDistance(p=1.0, eps=0.1, keepdim=True)", _pair, 2),
    ("CosineSimilarity(dim=0, eps=0.5)", _pair, 2),
]


def _scenario(text: str, make: Callable[..., tuple[Any, ...]], graded: int, dtype: str) -> Any:
    def scenario(m: Any) -> Any:
        dt = getattr(m, dtype)
        m.manual_seed(0)
        layer = eval(f"m.nn.{text}", {"m": m, "dt": dt})
        inputs = make(m, dt)
        inputs = [t.requires_grad_() if i < graded else t for i, t in enumerate(inputs)]
        out = layer(*inputs)
        weights = m.arange(1.0, out.numel() + 1, dtype=out.dtype).reshape(out.shape)
        (out * weights).sum().backward()
        state = [(k, v) for k, v in layer.state_dict().items()]
        buffers = [name for name, _ in layer.named_buffers()]
        return [repr(layer), out, [t.grad for t in inputs[:graded]], state, buffers]

    return scenario


@pytest.mark.parametrize(("text", "make", "graded"), LOSSES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_layer_matches_torch(
    torch: Any, text: str, make: Callable[..., Any], graded: int, dtype: str
) -> None:
    scenario = _scenario(text, make, graded, dtype)
    rtol = 1e-5 if dtype == "float32" else 1e-10
    assert_same(outcome(scenario, chainrule), outcome(scenario, torch), rtol=rtol, atol=1e-6)


def test_every_loss_of_torch_is_here(torch: Any) -> None:
    # LinearCrossEntropyLoss needs F.linear_cross_entropy, which is not written yet.
    wanted = set(torch.nn.modules.loss.__all__) - {"LinearCrossEntropyLoss"}
    assert wanted | {"PairwiseDistance", "CosineSimilarity"} <= set(dir(nn))


def test_constructor_errors_match_torch(torch: Any) -> None:
    def cases(m: Any) -> list[Any]:
        results = []
        for fn in (
            lambda: m.nn.MultiMarginLoss(p=3),
            lambda: m.nn.MultiMarginLoss(weight=m.ones(2, 2)),
            lambda: m.nn.TripletMarginLoss(margin=0.0),
            lambda: m.nn.TripletMarginWithDistanceLoss(margin=-1.0),
            lambda: m.nn.HuberLoss(delta="1"),
            lambda: m.nn.L1Loss(reduction="avg")(m.ones(2), m.ones(2)),
            lambda: m.nn.CTCLoss()(m.randn(5, 2, 4), m.ones(2, 3).long(), [5, 6], [2, 2]),
            lambda: m.nn.MultiLabelMarginLoss()(m.randn(2, 3), m.zeros(2, 2).long()),
            lambda: m.nn.MultiMarginLoss()(m.randn(2, 3), m.tensor([0, 3])),
        ):
            try:
                fn()
                results.append(None)
            except Exception as e:
                results.append((type(e).__name__, str(e).replace("torch.", "chainrule.")))
        return results

    assert cases(chainrule) == cases(torch)


def test_warnings_match_torch(torch: Any) -> None:
    messages = []
    for m in (chainrule, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            m.nn.MSELoss(size_average=False, reduce=True)
            m.nn.NLLLoss2d()
            m.nn.KLDivLoss()(m.zeros(2, 2), m.ones(2, 2))
        messages.append([(w.category.__name__, str(w.message)) for w in caught])
    assert messages[0] == messages[1] and len(messages[0]) == 3


def test_second_derivatives_torch_lacks_raise_as_in_torch(torch: Any) -> None:
    def second(m: Any, loss: Callable[[Any, Any], Any]) -> Any:
        x = m.randn(6, 3, 4, dtype=m.float64).log_softmax(2).detach().requires_grad_()
        (g,) = m.autograd.grad(loss(m, x), x, create_graph=True)
        try:
            g.sum().backward()
        except RuntimeError as e:
            return g.grad_fn.name(), str(e)
        return None

    losses = [
        lambda m, x: m.nn.MultiMarginLoss(p=2)(x[0], m.tensor([0, 1, 3])),
        lambda m, x: m.nn.MultiLabelMarginLoss()(x[0], m.tensor([[0, -1, 1, 1]] * 3)),
        lambda m, x: m.nn.CTCLoss()(x, m.tensor([[1, 2], [3, 3], [1, 0]]), [6, 6, 4], [2, 2, 1]),
    ]
    for loss in losses:
        assert second(chainrule, loss) == second(torch, loss) is not None


# --- without torch ---------------------------------------------------------------------------

REPRS = {
    "L1Loss()": "L1Loss()",
    "CrossEntropyLoss(label_smoothing=0.1)": "CrossEntropyLoss()",
    "BCEWithLogitsLoss(pos_weight=chainrule.ones(2))": "BCEWithLogitsLoss()",
    "TripletMarginWithDistanceLoss()": (
        "TripletMarginWithDistanceLoss(\n  (distance_function): PairwiseDistance()\n)"
    ),
    "PairwiseDistance()": "PairwiseDistance()",
    "CTCLoss()": "CTCLoss()",
}


@pytest.mark.parametrize(("text", "expected"), REPRS.items())
def test_repr(text: str, expected: str) -> None:
    assert repr(eval(f"nn.{text}")) == expected


def test_weights_are_buffers_registered_as_in_torch() -> None:
    weight = chainrule.tensor([1.0, 2.0])
    loss = nn.CrossEntropyLoss(weight=weight)
    assert loss.weight is weight and list(loss.state_dict()) == ["weight"]
    assert list(nn.CrossEntropyLoss().state_dict()) == []
    assert [n for n, _ in nn.CrossEntropyLoss()._buffers.items()] == ["weight"]
    both = nn.BCEWithLogitsLoss(weight=weight, pos_weight=weight * 2)
    assert list(both.state_dict()) == ["weight", "pos_weight"]
    assert list(nn.MultiMarginLoss(weight=weight).state_dict()) == ["weight"]


def test_legacy_reduction_arguments() -> None:
    expected = {(None, None): "mean", (False, None): "sum", (True, False): "none"}
    for (size_average, reduce), reduction in expected.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            loss = nn.L1Loss(size_average=size_average, reduce=reduce)
        assert loss.reduction == reduction
        assert len(caught) == (0 if reduction == "mean" else 1)
    with pytest.warns(UserWarning, match="please use reduction='sum' instead"):
        nn.NLLLoss(size_average=False)


def test_recorded_values() -> None:
    x = chainrule.tensor([[0.2, -1.0, 0.5], [1.5, 0.3, -0.4]], requires_grad=True)
    target = chainrule.tensor([2, 0])
    cases = {
        "CrossEntropyLoss()": 0.5235232,
        "MultiMarginLoss()": 0.1166667,
        "NLLLoss()": -1.0,
    }
    for text, value in cases.items():
        np.testing.assert_allclose(eval(f"nn.{text}")(x, target).item(), value, rtol=1e-6)
    labels = chainrule.tensor([[2, 0, -1], [1, -1, 2]])
    np.testing.assert_allclose(nn.MultiLabelMarginLoss()(x, labels).item(), 0.4166667, rtol=1e-6)


def test_ctc_loss_recorded_and_by_enumeration() -> None:
    """Two steps, one label: the alignments are (a, a), (a, blank) and (blank, a)."""
    log_probs = chainrule.tensor([[0.1, 0.6, 0.3], [0.5, 0.2, 0.3]]).log().reshape(2, 1, 3)
    loss = nn.CTCLoss(reduction="sum")(log_probs, chainrule.tensor([[1]]), [2], [1])
    expected = 0.6 * 0.2 + 0.6 * 0.5 + 0.1 * 0.2
    np.testing.assert_allclose(loss.item(), -np.log(expected), rtol=1e-6)


def test_ctc_gradient_is_torchs_softmax_form() -> None:
    """Through a log_softmax, PyTorch's gradient equals the true one: check it by finite
    differences of the logits."""
    chainrule.manual_seed(3)
    logits = chainrule.randn(5, 2, 4, dtype=chainrule.float64, requires_grad=True)
    targets = chainrule.tensor([[1, 2], [3, 0]])

    def loss(z: Any) -> Any:
        return nn.CTCLoss(reduction="sum")(z.log_softmax(2), targets, [5, 4], [2, 1])

    assert gradcheck(loss, (logits,))


@pytest.mark.parametrize(
    "make",
    [
        lambda: (nn.MultiMarginLoss(p=2, margin=0.7), chainrule.tensor([0, 2, 1, 2])),
        lambda: (nn.MultiLabelMarginLoss(), chainrule.tensor([[0, 2, -1]] * 4)),
        lambda: (nn.HuberLoss(delta=0.3), chainrule.randn(4, 3, dtype=chainrule.float64)),
        lambda: (nn.TripletMarginWithDistanceLoss(swap=True), None),
    ],
)
def test_gradcheck(make: Callable[[], Any]) -> None:
    chainrule.manual_seed(2)
    layer, target = make()
    x = chainrule.randn(4, 3, dtype=chainrule.float64, requires_grad=True)
    if target is None:
        others = [chainrule.randn(4, 3, dtype=chainrule.float64) for _ in range(2)]
        assert gradcheck(lambda a: layer(a, *others), (x,))
    else:
        assert gradcheck(lambda a: layer(a, target), (x,))
