"""The `torch.*` twins of nn.functional ops with PyTorch's native signatures: the dropouts
(`train` required, drawing as PyTorch draws after `manual_seed`), batch_norm and
instance_norm (weight and bias first), embedding (the table first), adaptive_max_pool1d
(values and indices) and the losses (`reduction` as an int, 0 when left out, as PyTorch's
bindings read it). Compared with PyTorch where it is installed and with what PyTorch 2.13
gave, recorded below.
"""

from __future__ import annotations

import math
import warnings
from types import ModuleType
from typing import Any

import pytest

import chainrule
import chainrule.nn.functional as F

NATIVE = [
    "adaptive_max_pool1d", "alpha_dropout", "alpha_dropout_", "batch_norm",
    "binary_cross_entropy_with_logits", "cosine_embedding_loss", "ctc_loss", "dropout",
    "dropout_", "embedding", "embedding_bag", "feature_alpha_dropout", "feature_alpha_dropout_",
    "feature_dropout", "feature_dropout_", "hinge_embedding_loss", "instance_norm", "kl_div",
    "margin_ranking_loss", "poisson_nll_loss", "triplet_margin_loss",
]  # fmt: skip


@pytest.mark.parametrize("name", NATIVE)
def test_not_the_functional_op(name: str) -> None:
    assert getattr(chainrule, name) is not getattr(F, name, None)


@pytest.mark.parametrize("name", NATIVE)
def test_not_the_functional_op_in_torch_either(torch: ModuleType, name: str) -> None:
    assert getattr(torch, name) is not getattr(torch.nn.functional, name, None)


# fmt: off
CALLS = [
    "lib.dropout(x, 0.5, True)",
    "lib.dropout(x.requires_grad_(), 0.25, True)",
    "lib.dropout(x, 0.5, False) is x",
    "lib.dropout(x, 1.5, True)",
    "lib.dropout(x, -0.5, False)",
    "lib.dropout(x, 1.0, True)",
    "lib.dropout(x.long(), 0.5, True)",
    "lib.dropout_(x, 0.5, True) is x",
    "lib.dropout_(x, 0.5, True)",
    "lib.alpha_dropout(x, 0.5, True)",
    "lib.alpha_dropout(x.requires_grad_(), 0.5, True)",
    "lib.alpha_dropout(x, 0.5, False) is x",
    "lib.alpha_dropout(x, 2.0, True)",
    "lib.alpha_dropout_(x, 0.3, True)",
    "lib.feature_dropout(x, 0.5, True)",
    "lib.feature_dropout(x[0], 0.5, True)",
    "lib.feature_dropout(x[0, 0], 0.5, True)",
    "lib.feature_dropout(x[0, 0], 0.5, False)",
    "lib.feature_dropout(x[0, 0], 0.5, False) is x[0, 0]",
    "lib.feature_dropout(x, -1.0, True)",
    "lib.feature_dropout_(x, 0.5, True)",
    "lib.feature_alpha_dropout(x, 0.5, True)",
    "lib.feature_alpha_dropout(x.requires_grad_(), 0.5, True)",
    "lib.feature_alpha_dropout(x[0, 0], 0.5, True)",
    "lib.feature_alpha_dropout_(x, 0.5, True)",
    "lib.batch_norm(x, None, None, None, None, True, 0.1, 1e-5, True)",
    "lib.batch_norm(x.requires_grad_(), ones, zeros, zeros, ones, False, 0.1, 1e-5, False)",
    "lib.batch_norm(x, None, None, None, None, False, 0.1, 1e-5, False)",
    "lib.batch_norm(x, lib.ones(2), None, None, None, True, 0.1, 1e-5, False)",
    "lib.batch_norm(x[0, 0], None, None, None, None, True, 0.1, 1e-5, False)",
    "(lib.batch_norm(x, None, None, zeros, ones, True, 0.5, 1e-5, False), zeros, ones)",
    "lib.instance_norm(x.requires_grad_(), None, None, None, None, True, 0.1, 1e-5, False)",
    "lib.instance_norm(x, None, None, None, None, False, 0.1, 1e-5, False)",
    "lib.instance_norm(x, lib.ones(2), None, None, None, True, 0.1, 1e-5, False)",
    "(lib.instance_norm(x, None, None, zeros, ones, True, 0.5, 1e-5, False), zeros, ones)",
    "lib.adaptive_max_pool1d(x.requires_grad_(), 3)",
    "lib.adaptive_max_pool1d(x, [2])",
    "lib.adaptive_max_pool1d(x, 0)",
    "lib.adaptive_max_pool1d(x, (2, 2))",
    "lib.adaptive_max_pool1d(x[0, 0], 2)",
    "lib.embedding(x[0].requires_grad_(), lib.tensor([[0, 2], [1, 1]]))",
    "lib.embedding(x[0], lib.tensor([0, 3]))",
    "lib.embedding(x[0], lib.tensor([[0, 2]]), 2)",
    "lib.embedding(x[0], lib.tensor([[0, 2]]), 7)",
    "lib.embedding(x[0], lib.tensor([[0, 2]]), -2)",
    "lib.binary_cross_entropy_with_logits(x.requires_grad_(), x.sigmoid())",
    "lib.binary_cross_entropy_with_logits(x, x.sigmoid(), None, lib.ones(4), 0)",
    "lib.binary_cross_entropy_with_logits(x, x.sigmoid(), lib.ones(4), None, 2)",
    "lib.binary_cross_entropy_with_logits(x, x[0].sigmoid(), None, None, 2)",
    "lib.binary_cross_entropy_with_logits(x, x.sigmoid(), None, None, 'mean')",
    "lib.kl_div(x.requires_grad_(), x.exp(), 1)",
    "lib.kl_div(x, x.exp(), 2)",
    "lib.kl_div(x, x, 0, log_target=True)",
    "lib.kl_div(x, x, 5)",
    "lib.kl_div(x, x, 'mean')",
    "lib.hinge_embedding_loss(x.requires_grad_(), x.sign())",
    "lib.hinge_embedding_loss(x, x.sign(), 0.5, 0)",
    "lib.margin_ranking_loss(x.requires_grad_(), x.flip(0), x.sign())",
    "lib.margin_ranking_loss(x, x, x[0, 0], 0.5, 2)",
    "lib.margin_ranking_loss(x, x, x[0, :2], 0.5, 2)",
    "lib.poisson_nll_loss(x.requires_grad_(), x.exp(), True, False, 1e-8, 1)",
    "lib.poisson_nll_loss(x.exp(), x.exp(), False, True, 1e-8, 0)",
    "lib.cosine_embedding_loss(x[0].requires_grad_(), x[1], lib.tensor([1.0, -1.0, 1.0]))",
    "lib.cosine_embedding_loss(x[0], x[1], lib.tensor([1.0, -1.0, 1.0]), 0.5, 0)",
    "lib.cosine_embedding_loss(x, x, lib.tensor([1.0, -1.0]), 0.5, 0)",
    "lib.triplet_margin_loss(x[0].requires_grad_(), x[1], x[0].flip(0))",
    "lib.triplet_margin_loss(x[0], x[1], x[0].flip(0), 0.5, 1, 1e-6, True, 0)",
    "lib.ctc_loss(lp.requires_grad_(), tg, [2, 2, 2], [2, 1, 2])",
    "lib.ctc_loss(lp, tg, lib.tensor([2, 2, 2]), lib.tensor([2, 1, 2]), 0, 0, True)",
    "lib.ctc_loss(lp, lib.tensor([[1, 2]]), [2, 2, 2], [2], 0, 1, False)",
    "lib.embedding_bag(E.requires_grad_(), idx, off)",
    "lib.embedding_bag(E, idx, off, False, 0, False, None, False, 2)",
    "lib.embedding_bag(E, idx, off, False, 0, False, None, True, None)",
    "lib.embedding_bag(E, idx, off, False, 0, False, lib.arange(6.0), False, -1)",
    "lib.embedding_bag(E.requires_grad_(), idx, off, False, 1, False, None, False, None)",
    "lib.embedding_bag(E, idx, off, False, 1, False, None, True, 2)",
    "lib.embedding_bag(E, idx, off, False, 1, False, None, True, None)",
    "lib.embedding_bag(E.requires_grad_(), idx, off, False, 2, False, None, False, None)",
    "lib.embedding_bag(E, idx.int(), off.int(), False, 2, False, None, True, 2)",
    "lib.embedding_bag(E, idx[:0], off[:1], False, 2)",
    "lib.embedding_bag(E, idx, off, False, 3)",
    "lib.embedding_bag(E, idx, None)",
    "lib.embedding_bag(E, idx, off, False, 1, False, lib.ones(6))",
    "lib.embedding_bag(E, idx, off, False, 0, False, None, False, 6)",
]

RECORDED = {
    'lib.dropout(x, 0.5, True)': (
        '(([-0.0, -0.0, -2.5, -0.0, -0.0, -0.0, -1.5, -1.25, -0.0, -0.75, -0.5, -0.25, '
        "0.0, 0.0, 0.5, 0.75, 1.0, 1.25, 0.0, 0.0, 2.0, 0.0, 2.5, 0.0], 'float32', (2, "
        '3, 4), None), [])'
    ),
    'lib.dropout(x.requires_grad_(), 0.25, True)': (
        '(([-0.0, -1.8333, -1.6667, -0.0, -1.3333, -0.0, -1.0, -0.8333, -0.6667, -0.5, '
        '-0.3333, -0.1667, 0.0, 0.1667, 0.3333, 0.5, 0.6667, 0.8333, 1.0, 0.0, 1.3333, '
        "1.5, 1.6667, 1.8333], 'float32', (2, 3, 4), 'MulBackward0'), [])"
    ),
    'lib.dropout(x, 0.5, False) is x': '(True, [])',
    'lib.dropout(x, 1.5, True)': (
        'RuntimeError: dropout probability has to be between 0 and 1, but got 1.5'
    ),
    'lib.dropout(x, -0.5, False)': (
        'RuntimeError: dropout probability has to be between 0 and 1, but got -0.5'
    ),
    'lib.dropout(x, 1.0, True)': (
        '(([-0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, 0.0, '
        "0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], 'float32', (2, 3, 4), "
        'None), [])'
    ),
    'lib.dropout(x.long(), 0.5, True)': (
        "RuntimeError: result type Float can't be cast to the desired output type Long"
    ),
    'lib.dropout_(x, 0.5, True) is x': '(True, [])',
    'lib.dropout_(x, 0.5, True)': (
        '(([-0.0, -0.0, -2.5, -0.0, -0.0, -0.0, -1.5, -1.25, -0.0, -0.75, -0.5, -0.25, '
        "0.0, 0.0, 0.5, 0.75, 1.0, 1.25, 0.0, 0.0, 2.0, 0.0, 2.5, 0.0], 'float32', (2, "
        '3, 4), None), [])'
    ),
    'lib.alpha_dropout(x, 0.5, True)': (
        '(([-0.7792, -0.7792, -0.3288, -0.7792, -0.7792, -0.7792, 0.1144, 0.2252, '
        '-0.7792, 0.4468, 0.5576, 0.6684, 0.7792, -0.7792, 1.0008, 1.1116, 1.2224, '
        "1.3332, -0.7792, -0.7792, 1.6656, -0.7792, 1.8872, -0.7792], 'float32', (2, 3, "
        '4), None), [])'
    ),
    'lib.alpha_dropout(x.requires_grad_(), 0.5, True)': (
        '(([-0.7792, -0.7792, -0.3288, -0.7792, -0.7792, -0.7792, 0.1144, 0.2252, '
        '-0.7792, 0.4468, 0.5576, 0.6684, 0.7792, -0.7792, 1.0008, 1.1116, 1.2224, '
        "1.3332, -0.7792, -0.7792, 1.6656, -0.7792, 1.8872, -0.7792], 'float32', (2, 3, "
        "4), 'AddBackward0'), [])"
    ),
    'lib.alpha_dropout(x, 0.5, False) is x': '(True, [])',
    'lib.alpha_dropout(x, 2.0, True)': (
        'RuntimeError: dropout probability has to be between 0 and 1, but got 2'
    ),
    'lib.alpha_dropout_(x, 0.3, True)': (
        '(([-1.0595, -1.0595, -0.6221, -1.0595, -0.4069, -1.0595, -0.1916, -0.084, '
        '0.0236, 0.1312, 0.2389, 0.3465, 0.4541, 0.5617, 0.6693, 0.7769, 0.8846, 0.9922, '
        "1.0998, -1.0595, 1.315, 1.4227, 1.5303, 1.6379], 'float32', (2, 3, 4), None), "
        '[])'
    ),
    'lib.feature_dropout(x, 0.5, True)': (
        '(([-0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -1.0, -0.75, -0.5, -0.25, '
        "0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], 'float32', (2, 3, "
        '4), None), [])'
    ),
    'lib.feature_dropout(x[0], 0.5, True)': (
        '(([-0.0, -0.0, -2.5, -0.0, -0.0, -0.0, -1.5, -1.25, -0.0, -0.75, -0.5, -0.25], '
        "'float32', (3, 4), None), [])"
    ),
    'lib.feature_dropout(x[0, 0], 0.5, True)': (
        'RuntimeError: Feature dropout requires at least 2 dimensions in the input'
    ),
    'lib.feature_dropout(x[0, 0], 0.5, False)': (
        "(([-1.5, -1.375, -1.25, -1.125], 'float32', (4,), None), [])"
    ),
    'lib.feature_dropout(x[0, 0], 0.5, False) is x[0, 0]': '(False, [])',
    'lib.feature_dropout(x, -1.0, True)': (
        'RuntimeError: dropout probability has to be between 0 and 1, but got -1'
    ),
    'lib.feature_dropout_(x, 0.5, True)': (
        '(([-0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -1.0, -0.75, -0.5, -0.25, '
        "0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], 'float32', (2, 3, "
        '4), None), [])'
    ),
    'lib.feature_alpha_dropout(x, 0.5, True)': (
        '(([-0.7792, -0.7792, -0.7792, -0.7792, -0.7792, -0.7792, -0.7792, -0.7792, '
        '0.336, 0.4468, 0.5576, 0.6684, -0.7792, -0.7792, -0.7792, -0.7792, -0.7792, '
        "-0.7792, -0.7792, -0.7792, -0.7792, -0.7792, -0.7792, -0.7792], 'float32', (2, "
        '3, 4), None), [])'
    ),
    'lib.feature_alpha_dropout(x.requires_grad_(), 0.5, True)': (
        '(([-0.7792, -0.7792, -0.7792, -0.7792, -0.7792, -0.7792, -0.7792, -0.7792, '
        '0.336, 0.4468, 0.5576, 0.6684, -0.7792, -0.7792, -0.7792, -0.7792, -0.7792, '
        "-0.7792, -0.7792, -0.7792, -0.7792, -0.7792, -0.7792, -0.7792], 'float32', (2, "
        "3, 4), 'AddBackward0'), [])"
    ),
    'lib.feature_alpha_dropout(x[0, 0], 0.5, True)': (
        'RuntimeError: Feature dropout requires at least 2 dimensions in the input'
    ),
    'lib.feature_alpha_dropout_(x, 0.5, True)': (
        '(([-0.7792, -0.7792, -0.7792, -0.7792, -0.7792, -0.7792, -0.7792, -0.7792, '
        '0.336, 0.4468, 0.5576, 0.6684, -0.7792, -0.7792, -0.7792, -0.7792, -0.7792, '
        "-0.7792, -0.7792, -0.7792, -0.7792, -0.7792, -0.7792, -0.7792], 'float32', (2, "
        '3, 4), None), [])'
    ),
    'lib.batch_norm(x, None, None, None, None, True, 0.1, 1e-5, True)': (
        '(([-1.2288, -1.065, -0.9011, -0.7373, -1.2288, -1.065, -0.9011, -0.7373, '
        '-1.2288, -1.065, -0.9011, -0.7373, 0.7373, 0.9011, 1.065, 1.2288, 0.7373, '
        "0.9011, 1.065, 1.2288, 0.7373, 0.9011, 1.065, 1.2288], 'float32', (2, 3, 4), "
        'None), [])'
    ),
    'lib.batch_norm(x.requires_grad_(), ones, zeros, zeros, ones, False, 0.1, 1e-5, False)': (
        '(([-1.5, -1.375, -1.25, -1.125, -1.0, -0.875, -0.75, -0.625, -0.5, -0.375, '
        '-0.25, -0.125, 0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1.0, 1.125, '
        "1.25, 1.375], 'float32', (2, 3, 4), 'NativeBatchNormBackward0'), [])"
    ),
    'lib.batch_norm(x, None, None, None, None, False, 0.1, 1e-5, False)': (
        'RuntimeError: running_mean must be defined in evaluation mode'
    ),
    'lib.batch_norm(x, lib.ones(2), None, None, None, True, 0.1, 1e-5, False)': (
        'RuntimeError: weight should contain 3 elements not 2'
    ),
    'lib.batch_norm(x[0, 0], None, None, None, None, True, 0.1, 1e-5, False)': (
        'IndexError: Dimension out of range (expected to be in range of [-1, 0], but got '
        '1)'
    ),
    '(lib.batch_norm(x, None, None, zeros, ones, True, 0.5, 1e-5, False), zeros, ones)': (
        '((([-1.2288, -1.065, -0.9011, -0.7373, -1.2288, -1.065, -0.9011, -0.7373, '
        '-1.2288, -1.065, -0.9011, -0.7373, 0.7373, 0.9011, 1.065, 1.2288, 0.7373, '
        "0.9011, 1.065, 1.2288, 0.7373, 0.9011, 1.065, 1.2288], 'float32', (2, 3, 4), "
        "None), ([-0.2812, -0.0312, 0.2188], 'float32', (3,), None), ([0.8326, 0.8326, "
        "0.8326], 'float32', (3,), None)), [])"
    ),
    'lib.instance_norm(x.requires_grad_(), None, None, None, None, True, 0.1, 1e-5, False)': (
        '(([-1.3413, -0.4471, 0.4471, 1.3413, -1.3413, -0.4471, 0.4471, 1.3413, -1.3413, '
        '-0.4471, 0.4471, 1.3413, -1.3413, -0.4471, 0.4471, 1.3413, -1.3413, -0.4471, '
        "0.4471, 1.3413, -1.3413, -0.4471, 0.4471, 1.3413], 'float32', (2, 3, 4), "
        "'ViewBackward0'), [])"
    ),
    'lib.instance_norm(x, None, None, None, None, False, 0.1, 1e-5, False)': (
        'RuntimeError: Expected running_mean and running_var to be defined when '
        'use_input_stats is false'
    ),
    'lib.instance_norm(x, lib.ones(2), None, None, None, True, 0.1, 1e-5, False)': (
        'RuntimeError: weight should contain 6 elements not 4'
    ),
    '(lib.instance_norm(x, None, None, zeros, ones, True, 0.5, 1e-5, False), zeros, ones)': (
        '((([-1.3413, -0.4471, 0.4471, 1.3413, -1.3413, -0.4471, 0.4471, 1.3413, '
        '-1.3413, -0.4471, 0.4471, 1.3413, -1.3413, -0.4471, 0.4471, 1.3413, -1.3413, '
        "-0.4471, 0.4471, 1.3413, -1.3413, -0.4471, 0.4471, 1.3413], 'float32', (2, 3, "
        "4), None), ([-0.2812, -0.0312, 0.2188], 'float32', (3,), None), ([0.513, 0.513, "
        "0.513], 'float32', (3,), None)), [])"
    ),
    'lib.adaptive_max_pool1d(x.requires_grad_(), 3)': (
        '((([-1.375, -1.25, -1.125, -0.875, -0.75, -0.625, -0.375, -0.25, -0.125, 0.125, '
        "0.25, 0.375, 0.625, 0.75, 0.875, 1.125, 1.25, 1.375], 'float32', (2, 3, 3), "
        "'SqueezeBackward1'), ([1.0, 2.0, 3.0, 1.0, 2.0, 3.0, 1.0, 2.0, 3.0, 1.0, 2.0, "
        "3.0, 1.0, 2.0, 3.0, 1.0, 2.0, 3.0], 'int64', (2, 3, 3), None)), [])"
    ),
    'lib.adaptive_max_pool1d(x, [2])': (
        '((([-1.375, -1.125, -0.875, -0.625, -0.375, -0.125, 0.125, 0.375, 0.625, 0.875, '
        "1.125, 1.375], 'float32', (2, 3, 2), None), ([1.0, 3.0, 1.0, 3.0, 1.0, 3.0, "
        "1.0, 3.0, 1.0, 3.0, 1.0, 3.0], 'int64', (2, 3, 2), None)), [])"
    ),
    'lib.adaptive_max_pool1d(x, 0)': (
        "((([], 'float32', (2, 3, 0), None), ([], 'int64', (2, 3, 0), None)), [])"
    ),
    'lib.adaptive_max_pool1d(x, (2, 2))': (
        "RuntimeError: adaptive_max_pool1d() argument 'output_size' should contain one "
        'int (got 2)'
    ),
    'lib.adaptive_max_pool1d(x[0, 0], 2)': (
        'RuntimeError: Expected 2 to 3 dimensions, but got 1-dimensional tensor for '
        "argument #1 'self' (while checking arguments for adaptive_max_pool1d)"
    ),
    'lib.embedding(x[0].requires_grad_(), lib.tensor([[0, 2], [1, 1]]))': (
        '(([-1.5, -1.375, -1.25, -1.125, -0.5, -0.375, -0.25, -0.125, -1.0, -0.875, '
        "-0.75, -0.625, -1.0, -0.875, -0.75, -0.625], 'float32', (2, 2, 4), "
        "'EmbeddingBackward0'), [])"
    ),
    'lib.embedding(x[0], lib.tensor([0, 3]))': 'IndexError: index out of range in self',
    'lib.embedding(x[0], lib.tensor([[0, 2]]), 2)': (
        "(([-1.5, -1.375, -1.25, -1.125, -0.5, -0.375, -0.25, -0.125], 'float32', (1, 2, "
        '4), None), [])'
    ),
    'lib.embedding(x[0], lib.tensor([[0, 2]]), 7)': (
        "(([-1.5, -1.375, -1.25, -1.125, -0.5, -0.375, -0.25, -0.125], 'float32', (1, 2, "
        '4), None), [])'
    ),
    'lib.embedding(x[0], lib.tensor([[0, 2]]), -2)': (
        "(([-1.5, -1.375, -1.25, -1.125, -0.5, -0.375, -0.25, -0.125], 'float32', (1, 2, "
        '4), None), [])'
    ),
    'lib.binary_cross_entropy_with_logits(x.requires_grad_(), x.sigmoid())': (
        '(([0.4751, 0.5029, 0.5303, 0.5569, 0.5822, 0.6059, 0.6275, 0.6466, 0.6628, '
        '0.6759, 0.6854, 0.6912, 0.6931, 0.6912, 0.6854, 0.6759, 0.6628, 0.6466, 0.6275, '
        "0.6059, 0.5822, 0.5569, 0.5303, 0.5029], 'float32', (2, 3, 4), "
        "'BinaryCrossEntropyWithLogitsBackward0'), [])"
    ),
    'lib.binary_cross_entropy_with_logits(x, x.sigmoid(), None, lib.ones(4), 0)': (
        '(([0.4751, 0.5029, 0.5303, 0.5569, 0.5822, 0.6059, 0.6275, 0.6466, 0.6628, '
        '0.6759, 0.6854, 0.6912, 0.6931, 0.6912, 0.6854, 0.6759, 0.6628, 0.6466, 0.6275, '
        "0.6059, 0.5822, 0.5569, 0.5303, 0.5029], 'float32', (2, 3, 4), None), [])"
    ),
    'lib.binary_cross_entropy_with_logits(x, x.sigmoid(), lib.ones(4), None, 2)': (
        "(([14.7033], 'float32', (), None), [])"
    ),
    'lib.binary_cross_entropy_with_logits(x, x[0].sigmoid(), None, None, 2)': (
        "RuntimeError: output with shape [3, 4] doesn't match the broadcast shape [2, 3, "
        '4]'
    ),
    "lib.binary_cross_entropy_with_logits(x, x.sigmoid(), None, None, 'mean')": (
        "TypeError: binary_cross_entropy_with_logits(): argument 'reduction' (position "
        '5) must be int, not str'
    ),
    'lib.kl_div(x.requires_grad_(), x.exp(), 1)': "(([-0.0], 'float32', (), 'MeanBackward0'), [])",
    'lib.kl_div(x, x.exp(), 2)': "(([-0.0], 'float32', (), None), [])",
    'lib.kl_div(x, x, 0, log_target=True)': (
        '(([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, '
        "0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], 'float32', (2, 3, 4), None), [])"
    ),
    'lib.kl_div(x, x, 5)': (
        '(([nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, 0.0, -0.2756, '
        '-0.4091, -0.5084, -0.5966, -0.6844, -0.7783, -0.8825, -1.0, -1.1331, -1.2836, '
        "-1.4528], 'float32', (2, 3, 4), None), [])"
    ),
    "lib.kl_div(x, x, 'mean')": (
        "TypeError: kl_div(): argument 'reduction' (position 3) must be int, not str"
    ),
    'lib.hinge_embedding_loss(x.requires_grad_(), x.sign())': (
        '(([2.5, 2.375, 2.25, 2.125, 2.0, 1.875, 1.75, 1.625, 1.5, 1.375, 1.25, 1.125, '
        '1.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1.0, 1.125, 1.25, 1.375], '
        "'float32', (2, 3, 4), 'AddBackward0'), [])"
    ),
    'lib.hinge_embedding_loss(x, x.sign(), 0.5, 0)': (
        '(([2.0, 1.875, 1.75, 1.625, 1.5, 1.375, 1.25, 1.125, 1.0, 0.875, 0.75, 0.625, '
        '0.5, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1.0, 1.125, 1.25, 1.375], '
        "'float32', (2, 3, 4), None), [])"
    ),
    'lib.margin_ranking_loss(x.requires_grad_(), x.flip(0), x.sign())': (
        '(([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, '
        "0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], 'float32', (2, 3, 4), "
        "'ClampMinBackward0'), [])"
    ),
    'lib.margin_ranking_loss(x, x, x[0, 0], 0.5, 2)': "(([12.0], 'float32', (), None), [])",
    'lib.margin_ranking_loss(x, x, x[0, :2], 0.5, 2)': (
        'RuntimeError: The size of tensor a (2) must match the size of tensor b (3) at '
        'non-singleton dimension 1'
    ),
    'lib.poisson_nll_loss(x.requires_grad_(), x.exp(), True, False, 1e-8, 1)': (
        "(([0.5419], 'float32', (), 'MeanBackward0'), [])"
    ),
    'lib.poisson_nll_loss(x.exp(), x.exp(), False, True, 1e-8, 0)': (
        '(([0.5578, 0.6005, 0.6446, 0.6899, 0.7358, 0.7816, 0.8266, 0.8698, 0.9098, '
        '0.945, 0.9735, 0.9928, 1.0, 0.9814, 1.0439, 1.1064, 1.1689, 1.2314, 1.2939, '
        "1.3564, 1.4189, 1.4814, 1.5439, 1.6064], 'float32', (2, 3, 4), None), [])"
    ),
    'lib.cosine_embedding_loss(x[0].requires_grad_(), x[1], lib.tensor([1.0, -1.0, 1.0]))': (
        "(([1.734, 0.0, 1.8589], 'float32', (3,), 'AddBackward0'), [])"
    ),
    'lib.cosine_embedding_loss(x[0], x[1], lib.tensor([1.0, -1.0, 1.0]), 0.5, 0)': (
        "(([1.734, 0.0, 1.8589], 'float32', (3,), None), [])"
    ),
    'lib.cosine_embedding_loss(x, x, lib.tensor([1.0, -1.0]), 0.5, 0)': (
        'RuntimeError: 1D target tensor expects 2D input tensors, but found inputs with '
        'sizes [2, 3, 4] and [2, 3, 4].'
    ),
    'lib.triplet_margin_loss(x[0].requires_grad_(), x[1], x[0].flip(0))': (
        "(([2.0, 4.0, 2.0], 'float32', (3,), 'ClampMinBackward0'), [])"
    ),
    'lib.triplet_margin_loss(x[0], x[1], x[0].flip(0), 0.5, 1, 1e-6, True, 0)': (
        "(([4.5, 6.5, 2.5], 'float32', (3,), None), [])"
    ),
    'lib.ctc_loss(lp.requires_grad_(), tg, [2, 2, 2], [2, 1, 2])': (
        "(([2.7921, 1.9, inf], 'float32', (3,), 'CtcLossBackward0'), [])"
    ),
    'lib.ctc_loss(lp, tg, lib.tensor([2, 2, 2]), lib.tensor([2, 1, 2]), 0, 0, True)': (
        "(([2.7921, 1.9, 0.0], 'float32', (3,), None), [])"
    ),
    'lib.ctc_loss(lp, lib.tensor([[1, 2]]), [2, 2, 2], [2], 0, 1, False)': (
        'RuntimeError: target_lengths must be of size batch_size'
    ),
    'lib.embedding_bag(E.requires_grad_(), idx, off)': (
        '((([6.0, 8.0, 10.0, 0.0, 0.0, 0.0, 30.0, 33.0, 36.0, 9.0, 10.0, 11.0], '
        "'float32', (4, 3), 'EmbeddingBagBackward0'), ([], 'int64', (0,), None), ([0.0, "
        "0.0, 0.0, 0.0], 'int64', (4,), None), ([0.0, 0.0, 0.0, 0.0], 'int64', (4,), "
        'None)), [])'
    ),
    'lib.embedding_bag(E, idx, off, False, 0, False, None, False, 2)': (
        '((([0.0, 1.0, 2.0, 0.0, 0.0, 0.0, 30.0, 33.0, 36.0, 9.0, 10.0, 11.0], '
        "'float32', (4, 3), None), ([0.0, 0.0, 2.0, 2.0, 2.0, 3.0], 'int64', (6,), "
        "None), ([0.0, 0.0, 0.0, 0.0], 'int64', (4,), None), ([0.0, 0.0, 0.0, 0.0], "
        "'int64', (4,), None)), [])"
    ),
    'lib.embedding_bag(E, idx, off, False, 0, False, None, True, None)': (
        "((([6.0, 8.0, 10.0, 0.0, 0.0, 0.0, 30.0, 33.0, 36.0], 'float32', (3, 3), None), "
        "([], 'int64', (0,), None), ([0.0, 0.0, 0.0, 0.0], 'int64', (4,), None), ([0.0, "
        "0.0, 0.0, 0.0], 'int64', (4,), None)), [])"
    ),
    'lib.embedding_bag(E, idx, off, False, 0, False, lib.arange(6.0), False, -1)': (
        '((([6.0, 7.0, 8.0, 0.0, 0.0, 0.0, 33.0, 38.0, 43.0, 45.0, 50.0, 55.0], '
        "'float32', (4, 3), None), ([0.0, 0.0, 2.0, 2.0, 2.0, 3.0], 'int64', (6,), "
        "None), ([0.0, 0.0, 0.0, 0.0], 'int64', (4,), None), ([0.0, 0.0, 0.0, 0.0], "
        "'int64', (4,), None)), [])"
    ),
    'lib.embedding_bag(E.requires_grad_(), idx, off, False, 1, False, None, False, None)': (
        '((([3.0, 4.0, 5.0, 0.0, 0.0, 0.0, 10.0, 11.0, 12.0, 9.0, 10.0, 11.0], '
        "'float32', (4, 3), 'EmbeddingBagBackward0'), ([0.0, 0.0, 2.0, 2.0, 2.0, 3.0], "
        "'int64', (6,), None), ([2.0, 0.0, 3.0, 1.0], 'int64', (4,), None), ([2.0, 0.0, "
        "3.0, 1.0], 'int64', (4,), None)), [])"
    ),
    'lib.embedding_bag(E, idx, off, False, 1, False, None, True, 2)': (
        "((([0.0, 1.0, 2.0, 0.0, 0.0, 0.0, 9.75, 10.75, 11.75], 'float32', (3, 3), "
        "None), ([0.0, 0.0, 2.0, 2.0, 2.0, 2.0], 'int64', (6,), None), ([1.0, 0.0, 4.0], "
        "'int64', (3,), None), ([1.0, 0.0, 4.0], 'int64', (3,), None)), [])"
    ),
    'lib.embedding_bag(E, idx, off, False, 1, False, None, True, None)': (
        "((([3.0, 4.0, 5.0, 0.0, 0.0, 0.0, 7.5, 8.25, 9.0], 'float32', (3, 3), None), "
        "([0.0, 0.0, 2.0, 2.0, 2.0, 2.0], 'int64', (6,), None), ([2.0, 0.0, 4.0], "
        "'int64', (3,), None), ([2.0, 0.0, 4.0], 'int64', (3,), None)), [])"
    ),
    'lib.embedding_bag(E.requires_grad_(), idx, off, False, 2, False, None, False, None)': (
        '((([6.0, 7.0, 8.0, 0.0, 0.0, 0.0, 15.0, 16.0, 17.0, 9.0, 10.0, 11.0], '
        "'float32', (4, 3), 'EmbeddingBagBackward0'), ([0.0, 0.0, 2.0, 2.0, 2.0, 3.0], "
        "'int64', (6,), None), ([2.0, 0.0, 3.0, 1.0], 'int64', (4,), None), ([2.0, 2.0, "
        "2.0, 0.0, 0.0, 0.0, 5.0, 5.0, 5.0, 3.0, 3.0, 3.0], 'int64', (4, 3), None)), [])"
    ),
    'lib.embedding_bag(E, idx.int(), off.int(), False, 2, False, None, True, 2)': (
        "((([0.0, 1.0, 2.0, 0.0, 0.0, 0.0, 15.0, 16.0, 17.0], 'float32', (3, 3), None), "
        "([0.0, 0.0, 2.0, 2.0, 2.0, 2.0], 'int32', (6,), None), ([1.0, 0.0, 4.0], "
        "'int32', (3,), None), ([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 5.0, 5.0, 5.0], 'int32', "
        '(3, 3), None)), [])'
    ),
    'lib.embedding_bag(E, idx[:0], off[:1], False, 2)': (
        "((([0.0, 0.0, 0.0], 'float32', (1, 3), None), ([], 'int64', (0,), None), "
        "([0.0], 'int64', (1,), None), ([0.0, 0.0, 0.0], 'int64', (1, 3), None)), [])"
    ),
    'lib.embedding_bag(E, idx, off, False, 3)': 'RuntimeError: `mode` must be sum, mean, or max.',
    'lib.embedding_bag(E, idx, None)': (
        "TypeError: embedding_bag(): argument 'offsets' (position 3) must be Tensor, not "
        'NoneType'
    ),
    'lib.embedding_bag(E, idx, off, False, 1, False, lib.ones(6))': (
        "RuntimeError: embedding_bag: per_sample_weights only supported with mode='sum'"
    ),
    'lib.embedding_bag(E, idx, off, False, 0, False, None, False, 6)': (
        'RuntimeError: padding_idx must be within the number of embeddings, -6 through '
        '5, but got 6'
    ),
}
# fmt: on


def outcome(lib: Any, call: str) -> str:
    """What `call` gives after `manual_seed(0)`: values (rounded), dtype, shape and node of
    each tensor, and the warnings; or the exception's type and text."""
    x = lib.arange(-12.0, 12.0).reshape(2, 3, 4) / 8
    env = {
        "lib": lib,
        "x": x,
        "ones": lib.ones(3),
        "zeros": lib.zeros(3),
        "lp": x.log_softmax(2),
        "tg": lib.tensor([[1, 2], [1, 1], [2, 2]]),
        "E": lib.arange(18.0).reshape(6, 3),
        "idx": lib.tensor([0, 2, 4, 1, 5, 3]),
        "off": lib.tensor([0, 2, 2, 5]),
    }
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.manual_seed(0)
            value = eval(call, env)
    except Exception as e:
        return f"{type(e).__name__}: {e}"

    def one(v: Any) -> Any:
        if isinstance(v, lib.Tensor):
            node = type(v.grad_fn).__name__ if v.grad_fn is not None else None
            vals = [round(t, 4) for t in v.detach().double().reshape(-1).tolist()]
            return (vals, str(v.dtype).split(".")[-1], tuple(v.shape), node)
        if isinstance(v, tuple):
            return tuple(one(t) for t in v)
        return v

    return repr((one(value), [str(m.message) for m in w]))


@pytest.mark.parametrize("call", CALLS)
def test_as_recorded(call: str) -> None:
    assert outcome(chainrule, call) == RECORDED[call]


@pytest.mark.parametrize("call", CALLS)
def test_as_torch(torch: ModuleType, call: str) -> None:
    assert outcome(chainrule, call) == outcome(torch, call)


@pytest.mark.parametrize(
    "name", ["dropout", "alpha_dropout", "feature_dropout", "feature_alpha_dropout"]
)
@pytest.mark.parametrize(("seed", "shape"), [(1, (3, 5)), (7, (2, 4, 3, 2))])
def test_dropouts_draw_as_pytorch(torch: ModuleType, name: str, seed: int, shape: tuple) -> None:
    found = []
    for lib in (chainrule, torch):
        lib.manual_seed(seed)
        x = lib.arange(1.0, 1.0 + math.prod(shape)).reshape(shape)
        found.append(getattr(lib, name)(x, 0.4, True).reshape(-1).tolist())
    assert found[0] == pytest.approx(found[1], rel=1e-6)


def test_in_place_dropouts_write_their_input() -> None:
    for name in ("dropout_", "alpha_dropout_", "feature_dropout_", "feature_alpha_dropout_"):
        x = chainrule.ones(4, 6)
        assert getattr(chainrule, name)(x, 0.5, True) is x
        assert x.tolist() != chainrule.ones(4, 6).tolist()
