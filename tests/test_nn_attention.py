"""scaled_dot_product_attention, multi_head_attention_forward and MultiheadAttention:
against torch (values, every gradient, dropout draws, reprs, initial weights, errors
and warnings) and on their own (recorded reprs and messages, gradcheck, invariants)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import chainrule
import chainrule.nn.functional as F
from attention_compare import arrays, compare
from chainrule.autograd import gradcheck
from nn_compare import error

RNG_SEED = 3


def sdpa(**kw: Any) -> Any:
    def call(model: Any, q: Any, k: Any, v: Any, mask: Any = None) -> Any:
        lib = chainrule if isinstance(q, chainrule.Tensor) else __import__("torch")
        return lib.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, **kw)

    return call


SDPA_CASES = {
    "plain": ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7), None, {}),
    "three_dims": ((3, 4, 5), (3, 6, 5), (3, 6, 2), None, {}),
    "two_dims": ((4, 5), (6, 5), (6, 3), None, {}),
    "causal_square": ((2, 2, 5, 4), (2, 2, 5, 4), (2, 2, 5, 4), None, {"is_causal": True}),
    "causal_wide": ((1, 2, 3, 4), (1, 2, 6, 4), (1, 2, 6, 4), None, {"is_causal": True}),
    "scale": ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7), None, {"scale": 0.3}),
    "bool_mask": ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7), "bool", {}),
    "float_mask": ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7), "float", {}),
    "broadcast_heads": ((2, 3, 4, 5), (2, 1, 6, 5), (2, 1, 6, 7), None, {}),
    "gqa": ((2, 6, 4, 5), (2, 2, 6, 5), (2, 3, 6, 7), None, {"enable_gqa": True}),
    # Equal head dims, 4-D, no dropout: torch runs its fused CPU kernel (one node,
    # ScaledDotProductFlashAttentionForCpuBackward0); the values agree within rounding.
    "fused_in_torch": ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5), "bool", {}),
}


def _mask(kind: Any, rng: np.random.Generator, shape: tuple[int, int]) -> Any:
    if kind == "bool":
        m = rng.random(shape) > 0.4
        m[:, 0] = True
        m[0] = False  # a row that attends to nothing: the safe softmax gives zeros
        return m
    if kind == "float":
        return rng.standard_normal((1, *shape))  # requires grad: it gets a gradient too
    return None


@pytest.mark.parametrize("name", sorted(SDPA_CASES))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sdpa_matches_torch(torch: Any, name: str, dtype: Any) -> None:
    qs, ks, vs, kind, kw = SDPA_CASES[name]
    rng = np.random.default_rng(RNG_SEED)
    q, k, v = arrays(rng, qs, ks, vs, dtype=dtype)
    mask = _mask(kind, rng, (qs[-2], ks[-2]))
    if mask is not None and mask.dtype.kind == "f":
        mask = mask.astype(dtype)
    compare(torch, None, (q, k, v, mask), sdpa(**kw))


@pytest.mark.parametrize("p", [0.3, 0.75, 1.0])
def test_sdpa_dropout_draws_as_torch(torch: Any, p: float) -> None:
    rng = np.random.default_rng(1)
    q, k, v = arrays(rng, (2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7), dtype=np.float32)
    # The same Bernoulli mask (values within rounding) and the generator left in the same
    # state: the next draws after the call are equal.
    got = compare(torch, None, (q, k, v), sdpa(dropout_p=p), seed=11)
    assert got["next_draw"].shape == (3,)


def test_sdpa_node_names() -> None:
    q, k, v = (chainrule.randn(1, 2, 3, 4, requires_grad=True) for _ in range(3))
    out = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
    names = []
    stack = [out.grad_fn]
    while stack:
        node = stack.pop()
        names.append(node.name())
        stack.extend(f for f, _ in node.next_functions if f is not None)
    # PyTorch's math path: q and kᵀ scaled (MulBackward1), the safe softmax, the dropout
    # product (MulBackward0); the batched products are chainrule's matmul nodes.
    for name in ("SafeSoftmaxBackward0", "MulBackward0", "MulBackward1", "TransposeBackward0"):
        assert name in names
    assert names.count("MulBackward1") == 2


SDPA_ERRORS = [
    (lambda m, q, k, v: m.nn.functional.scaled_dot_product_attention(q, k.double(), v)),
    (lambda m, q, k, v: m.nn.functional.scaled_dot_product_attention(q[0, 0, 0], k, v)),
    (lambda m, q, k, v: m.nn.functional.scaled_dot_product_attention(q, k, v, m.ones(4, 6).long())),
    (
        lambda m, q, k, v: m.nn.functional.scaled_dot_product_attention(
            q, k, v, m.ones(4, 6).double()
        )
    ),
    (
        lambda m, q, k, v: m.nn.functional.scaled_dot_product_attention(
            q, k, v, m.ones(4, 6).bool(), is_causal=True
        )
    ),
    (lambda m, q, k, v: m.nn.functional.scaled_dot_product_attention(q, k, v, dropout_p=1.5)),
    (lambda m, q, k, v: m.nn.functional.scaled_dot_product_attention(q.long(), k.long(), v.long())),
    (
        lambda m, q, k, v: m.nn.functional.scaled_dot_product_attention(
            q, k[:, :2], v[:, :2], enable_gqa=True
        )
    ),
    (
        lambda m, q, k, v: m.nn.functional.scaled_dot_product_attention(
            q, k, v, None, 0.0, False, 1.0
        )
    ),
]
SDPA_MESSAGES = [
    (
        "RuntimeError",
        "Expected query, key, and value to have the same dtype, but got query.dtype: float "
        "key.dtype: double and value.dtype: float instead.",
    ),
    (
        "RuntimeError",
        "Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: 1 "
        "key.dim: 4 and value.dim: 4 instead.",
    ),
    (
        "RuntimeError",
        "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
        "attn_mask.dtype: long int and  query.dtype: float instead.",
    ),
    (
        "RuntimeError",
        "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
        "attn_mask.dtype: double and  query.dtype: float instead.",
    ),
    (
        "RuntimeError",
        "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True",
    ),
    ("RuntimeError", "dropout probability has to be between 0 and 1, but got 1.5"),
    ("RuntimeError", "expected scalar type Float but found Long"),
    ("RuntimeError", "Number of heads in key and value must divide the number of heads in "),
    (
        "TypeError",
        "scaled_dot_product_attention() takes from 3 to 6 positional arguments but 7 were given",
    ),
]


def _qkv(m: Any) -> tuple[Any, Any, Any]:
    return m.randn(2, 3, 4, 5), m.randn(2, 3, 6, 5), m.randn(2, 3, 6, 7)


@pytest.mark.parametrize("i", range(len(SDPA_ERRORS)))
def test_sdpa_errors_recorded(i: int) -> None:
    assert error(lambda: SDPA_ERRORS[i](chainrule, *_qkv(chainrule))) == SDPA_MESSAGES[i]


@pytest.mark.parametrize("i", range(len(SDPA_ERRORS)))
def test_sdpa_errors_match_torch(torch: Any, i: int) -> None:
    assert error(lambda: SDPA_ERRORS[i](torch, *_qkv(torch))) == SDPA_MESSAGES[i]


def test_sdpa_gradcheck() -> None:
    rng = np.random.default_rng(0)
    q, k, v = (
        chainrule.tensor(a, requires_grad=True)
        for a in arrays(rng, (2, 3, 2), (2, 4, 2), (2, 4, 3))
    )
    mask = chainrule.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    assert gradcheck(lambda *t: F.scaled_dot_product_attention(*t), (q, k, v, mask))
    causal = lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.7)  # noqa: E731
    assert gradcheck(causal, (q, k, v))


def test_sdpa_blocked_rows_are_zero_and_rows_mix_values() -> None:
    q, k, v = chainrule.randn(3, 2), chainrule.randn(4, 2), chainrule.randn(4, 5)
    allowed = chainrule.tensor([[False] * 4, [True, False, True, False], [True] * 4])
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    assert out[0].eq(0).all()
    # With one key allowed, the output row is that key's value.
    one = chainrule.tensor([[False, False, True, False]] * 3)
    np.testing.assert_allclose(
        F.scaled_dot_product_attention(q, k, v, attn_mask=one).numpy(), v[2].expand(3, 5).numpy()
    )


# --- multi_head_attention_forward -----------------------------------------------------------


def test_functional_mha_matches_torch(torch: Any) -> None:
    rng = np.random.default_rng(5)
    e, heads = 6, 2
    query, key, w, b, wo, bo, bk, bv = arrays(
        rng, (3, 2, e), (4, 2, e), (3 * e, e), (3 * e,), (e, e), (e,), (1, 1, e), (1, 1, e)
    )

    def call(
        model: Any, query: Any, key: Any, w: Any, b: Any, wo: Any, bo: Any, bk: Any, bv: Any
    ) -> Any:
        lib = chainrule if isinstance(query, chainrule.Tensor) else torch
        return lib.nn.functional.multi_head_attention_forward(
            query, key, key, e, heads, w, b, bk, bv, True, 0.0, wo, bo, average_attn_weights=False
        )

    compare(torch, None, (query, key, w, b, wo, bo, bk, bv), call)


# --- MultiheadAttention -------------------------------------------------------------------------

MHA_CONFIGS = {
    "default": {},
    "no_bias": {"bias": False},
    "bias_kv_zero_attn": {"add_bias_kv": True, "add_zero_attn": True},
    "kdim_vdim": {"kdim": 3, "vdim": 5},
    "batch_first": {"batch_first": True},
    "dropout": {"dropout": 0.4},
}


def _mha(config: dict[str, Any]) -> Any:
    return lambda m: m.nn.MultiheadAttention(6, 2, **config)


def test_mha_repr_and_parameters_recorded() -> None:
    chainrule.manual_seed(0)
    mha = chainrule.nn.MultiheadAttention(6, 2, add_bias_kv=True, kdim=3, vdim=5)
    assert repr(mha) == (
        "MultiheadAttention(\n"
        "  (out_proj): NonDynamicallyQuantizableLinear(in_features=6, out_features=6, bias=True)\n"
        ")"
    )
    shapes = [(n, tuple(p.shape)) for n, p in mha.named_parameters()]
    assert shapes == [
        ("q_proj_weight", (6, 6)),
        ("k_proj_weight", (6, 3)),
        ("v_proj_weight", (6, 5)),
        ("in_proj_bias", (18,)),
        ("bias_k", (1, 1, 6)),
        ("bias_v", (1, 1, 6)),
        ("out_proj.weight", (6, 6)),
        ("out_proj.bias", (6,)),
    ]
    assert mha.in_proj_weight is None and mha.in_proj_bias.eq(0).all()
    assert mha.out_proj.bias.eq(0).all() and mha.head_dim == 3


@pytest.mark.parametrize("name", sorted(MHA_CONFIGS))
def test_mha_init_and_repr_match_torch(torch: Any, name: str) -> None:
    for m in (torch, chainrule):
        m.manual_seed(12)
    t, c = _mha(MHA_CONFIGS[name])(torch), _mha(MHA_CONFIGS[name])(chainrule)
    assert repr(c) == repr(t)
    tp, cp = dict(t.named_parameters()), dict(c.named_parameters())
    assert list(cp) == list(tp)
    for key in tp:
        np.testing.assert_array_equal(cp[key].detach().numpy(), tp[key].detach().numpy())
    assert list(c.state_dict()) == list(t.state_dict())


def _mha_call(kpm: Any = None, mask: Any = None, **kw: Any) -> Any:
    def call(model: Any, query: Any, key: Any, value: Any, kpm_t: Any, mask_t: Any) -> Any:
        # Self-attention passes one tensor three times, as PyTorch's callers do.
        key = query if key is None else key
        value = key if value is None else value
        return model(query, key, value, key_padding_mask=kpm_t, attn_mask=mask_t, **kw)

    return call


def _bool(rng: np.random.Generator, shape: tuple[int, ...]) -> Any:
    m = rng.random(shape) > 0.6
    m[..., 0] = False  # every query keeps one key
    return m


MHA_FORWARDS = {
    "self": ("default", None, None, {}),
    "self_no_weights": ("default", None, None, {"need_weights": False}),
    "per_head_weights": ("default", None, None, {"average_attn_weights": False}),
    "kpm_bool": ("default", "kpm", None, {}),
    "kpm_bool_sdpa": ("default", "kpm", None, {"need_weights": False}),
    "mask_2d_bool": ("default", None, "2d", {}),
    "mask_3d_float": ("no_bias", None, "3d_float", {"need_weights": False}),
    "both_masks": ("bias_kv_zero_attn", "kpm", "2d", {}),
    "causal": ("default", None, "causal", {"is_causal": True, "need_weights": False}),
    "kdim_vdim": ("kdim_vdim", "kpm", None, {}),
    "batch_first": ("batch_first", "kpm", "2d", {"need_weights": False}),
}


def _mha_inputs(name: str, dtype: Any) -> tuple[Any, ...]:
    config, kpm, mask, _ = MHA_FORWARDS[name]
    rng = np.random.default_rng(4)
    l, s, n = 3, 4, 2
    kd, vd = MHA_CONFIGS[config].get("kdim", 6), MHA_CONFIGS[config].get("vdim", 6)
    if name == "self" or name.startswith("self_") or name in ("per_head_weights", "causal"):
        s = l
        (query,) = arrays(rng, (l, n, 6), dtype=dtype)
        key = value = None
    else:
        query, key, value = arrays(rng, (l, n, 6), (s, n, kd), (s, n, vd), dtype=dtype)
    if config == "batch_first":
        query, key, value = (a.transpose(1, 0, 2).copy() for a in (query, key, value))
    kpm_a = _bool(rng, (n, s)) if kpm else None
    mask_a = None
    if mask == "2d":
        mask_a = _bool(rng, (l, s))
    elif mask == "3d_float":
        mask_a = rng.standard_normal((n * 2, l, s)).astype(dtype)
    elif mask == "causal":
        mask_a = np.triu(np.full((l, s), -np.inf), 1).astype(dtype)
    return query, key, value, kpm_a, mask_a


@pytest.mark.parametrize("name", sorted(MHA_FORWARDS))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_mha_forward_backward_match_torch(torch: Any, name: str, dtype: Any) -> None:
    config, _, _, kw = MHA_FORWARDS[name]
    build = _mha(MHA_CONFIGS[config])

    def typed(m: Any) -> Any:
        return build(m).to(m.float64 if dtype == np.float64 else m.float32)

    compare(torch, typed, _mha_inputs(name, dtype), _mha_call(**kw))


def test_mha_unbatched_matches_torch(torch: Any) -> None:
    rng = np.random.default_rng(2)
    query, key = arrays(rng, (3, 6), (4, 6))
    kpm = np.array([False, True, False, True])
    mask = rng.standard_normal((2, 3, 4))
    compare(torch, lambda m: _mha({})(m).double(), (query, key, key, kpm, mask), _mha_call())


@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_eval_and_dropout_match_torch(torch: Any, need_weights: bool) -> None:
    inputs = _mha_inputs("kpm_bool", np.float32)
    build = _mha(MHA_CONFIGS["dropout"])
    call = _mha_call(need_weights=need_weights)
    compare(torch, build, inputs, call)  # eval: no dropout
    compare(torch, build, inputs, call, train=True, seed=5)  # train: torch's draws


def test_mha_mask_type_warning() -> None:
    mha = chainrule.nn.MultiheadAttention(4, 2)
    x = chainrule.randn(3, 1, 4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mha(
            x,
            x,
            x,
            key_padding_mask=chainrule.zeros(1, 3, dtype=chainrule.bool),
            attn_mask=chainrule.zeros(3, 3),
        )
    assert [str(w.message) for w in caught] == [
        "Support for mismatched key_padding_mask and attn_mask is deprecated. Use same type for "
        "both instead."
    ]


MHA_ERRORS = [
    lambda m: m.nn.MultiheadAttention(0, 2),
    lambda m: m.nn.MultiheadAttention(5, 2),
    lambda m: m.nn.MultiheadAttention(4, 2)(
        m.zeros(3, 1, 4), m.zeros(3, 1, 4), m.zeros(3, 1, 4), is_causal=True
    ),
    lambda m: m.nn.MultiheadAttention(4, 2)(m.zeros(3, 1, 4), m.zeros(3, 1, 4), m.zeros(2, 1, 4)),
    lambda m: m.nn.MultiheadAttention(4, 2)(m.zeros(3, 1, 4), m.zeros(3, 4), m.zeros(3, 4)),
    lambda m: m.nn.MultiheadAttention(4, 2)(
        m.zeros(3, 1, 4), m.zeros(3, 1, 4), m.zeros(3, 1, 4), attn_mask=m.zeros(2, 3)
    ),
    lambda m: m.nn.MultiheadAttention(4, 2)(
        m.zeros(3, 1, 4), m.zeros(3, 1, 4), m.zeros(3, 1, 4), attn_mask=m.zeros(3, 3).long()
    ),
    lambda m: m.nn.MultiheadAttention(4, 2)(
        m.zeros(3, 1, 4), m.zeros(3, 1, 4), m.zeros(3, 1, 4), key_padding_mask=m.zeros(2, 3)
    ),
    lambda m: m.nn.MultiheadAttention(4, 2)(m.zeros(3, 1, 5), m.zeros(3, 1, 5), m.zeros(3, 1, 5)),
]
MHA_MESSAGES = [
    (
        "ValueError",
        "embed_dim and num_heads must be greater than 0, got embed_dim=0 and num_heads=2 instead",
    ),
    ("AssertionError", "embed_dim must be divisible by num_heads"),
    (
        "RuntimeError",
        "Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
        "method `generate_square_subsequent_mask` to create this mask.",
    ),
    (
        "AssertionError",
        "key shape torch.Size([3, 1, 4]) does not match value shape torch.Size([2, 1, 4])",
    ),
    (
        "AssertionError",
        "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found 2-D and 2-D "
        "tensors respectively",
    ),
    ("RuntimeError", "The shape of the 2D attn_mask is torch.Size([2, 3]), but should be (3, 3)."),
    ("AssertionError", "only bool and floating types of attn_mask are supported"),
    ("AssertionError", "Expected key_padded_mask.shape[0] to be 1, but got 2"),
    ("AssertionError", "was expecting embedding dimension of 4, but got 5"),
]


def _text(e: Any) -> Any:
    return None if e is None else (e[0], e[1].replace("chainrule.", "torch."))


@pytest.mark.parametrize("i", range(len(MHA_ERRORS)))
def test_mha_errors(i: int) -> None:
    assert _text(error(lambda: MHA_ERRORS[i](chainrule))) == MHA_MESSAGES[i]


@pytest.mark.parametrize("i", range(len(MHA_ERRORS)))
def test_mha_errors_match_torch(torch: Any, i: int) -> None:
    assert _text(error(lambda: MHA_ERRORS[i](torch))) == MHA_MESSAGES[i]


def test_mha_gradcheck_and_weights_sum_to_one() -> None:
    chainrule.manual_seed(0)
    mha = chainrule.nn.MultiheadAttention(4, 2, add_bias_kv=True, kdim=3, vdim=2).double()
    rng = np.random.default_rng(0)
    q, k, v = (
        chainrule.tensor(a, requires_grad=True)
        for a in arrays(rng, (2, 1, 4), (3, 1, 3), (3, 1, 2))
    )
    assert gradcheck(lambda q, k, v: mha(q, k, v)[0], (q, k, v))
    _, weights = mha(q, k, v, average_attn_weights=False)
    assert weights.shape == (1, 2, 2, 4)
    np.testing.assert_allclose(weights.sum(-1).detach().numpy(), np.ones((1, 2, 2)))
