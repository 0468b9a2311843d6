"""The transformer layers, their stacks and Transformer: against torch (reprs, parameter
names, initial weights under a seed, outputs and every gradient with torch's weights, in
train with dropout and in eval) and on their own (recorded reprs, masks, gradcheck)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import chainrule
from attention_compare import arrays, compare
from chainrule.autograd import gradcheck
from nn_compare import error

D, HEADS, FF = 6, 2, 10


def encoder_layer(m: Any, **kw: Any) -> Any:
    return m.nn.TransformerEncoderLayer(D, HEADS, FF, **kw)


def decoder_layer(m: Any, **kw: Any) -> Any:
    return m.nn.TransformerDecoderLayer(D, HEADS, FF, **kw)


def quiet(build: Any) -> Any:
    """`build` without the encoder's nested-tensor warning."""

    def make(m: Any) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return build(m)

    return make


BUILDS = {
    "encoder_layer": lambda m: encoder_layer(m, dropout=0.0),
    "encoder_layer_gelu_batch_first": lambda m: encoder_layer(
        m, dropout=0.0, activation="gelu", norm_first=True, batch_first=True
    ),
    "encoder_layer_no_bias": lambda m: encoder_layer(
        m, dropout=0.0, bias=False, layer_norm_eps=1e-3
    ),
    "encoder_layer_callable": lambda m: encoder_layer(m, dropout=0.0, activation=m.tanh),
    "decoder_layer": lambda m: decoder_layer(m, dropout=0.0),
    "decoder_layer_batch_first": lambda m: decoder_layer(
        m, dropout=0.0, norm_first=True, activation="gelu", batch_first=True
    ),
    "encoder": quiet(lambda m: m.nn.TransformerEncoder(encoder_layer(m, dropout=0.0), 2)),
    "decoder": lambda m: m.nn.TransformerDecoder(decoder_layer(m, dropout=0.0), 2),
    "transformer": quiet(lambda m: m.nn.Transformer(D, HEADS, 2, 1, FF, dropout=0.0)),
    "transformer_batch_first": quiet(
        lambda m: m.nn.Transformer(
            D, HEADS, 1, 2, FF, dropout=0.0, batch_first=True, norm_first=True
        )
    ),
}
DROPOUT_BUILDS = {
    "encoder_layer": lambda m: encoder_layer(m, dropout=0.3),
    "decoder_layer": lambda m: decoder_layer(m, dropout=0.3, norm_first=True),
    "transformer": quiet(lambda m: m.nn.Transformer(D, HEADS, 1, 1, FF, dropout=0.3)),
}


def _kind(name: str) -> str:
    return (
        "transformer"
        if name.startswith("transformer")
        else "decoder"
        if "decoder" in name
        else "encoder"
    )


def _inputs(name: str, dtype: Any, masks: bool) -> tuple[Any, ...]:
    rng = np.random.default_rng(9)
    s, t, n = 4, 3, 2
    src, tgt = arrays(rng, (s, n, D), (t, n, D), dtype=dtype)
    if "batch_first" in name:
        src, tgt = src.transpose(1, 0, 2).copy(), tgt.transpose(1, 0, 2).copy()
    if not masks:
        return (src,) if _kind(name) == "encoder" else (src, tgt)
    pad = np.array([[False, False, False, True], [False, False, True, True]])
    causal = np.triu(np.full((t, t), -np.inf), 1).astype(dtype)
    if _kind(name) == "encoder":
        return (src, np.triu(np.ones((s, s), bool), 2), pad)
    return (src, tgt, causal, pad)


def _call(name: str, masks: bool) -> Any:
    kind = _kind(name)

    def call(model: Any, *inputs: Any) -> Any:
        if not masks:
            if kind == "decoder":
                return model(inputs[1], inputs[0])
            return model(*inputs)
        if kind == "encoder":
            src, mask, pad = inputs
            return model(src, mask, pad)
        src, tgt, causal, pad = inputs
        if kind == "decoder":
            return model(tgt, src, tgt_mask=causal, memory_key_padding_mask=pad)
        return model(
            src, tgt, tgt_mask=causal, src_key_padding_mask=pad, memory_key_padding_mask=pad
        )

    return call


def _typed(build: Any, dtype: Any) -> Any:
    return lambda m: build(m).to(m.float64 if dtype == np.float64 else m.float32)


@pytest.mark.parametrize("name", sorted(BUILDS))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("masks", [False, True])
def test_forward_backward_match_torch(torch: Any, name: str, dtype: Any, masks: bool) -> None:
    build = _typed(BUILDS[name], dtype)
    compare(torch, build, _inputs(name, dtype, masks), _call(name, masks), train=True)


@pytest.mark.parametrize("name", sorted(DROPOUT_BUILDS))
def test_dropout_in_train_draws_as_torch(torch: Any, name: str) -> None:
    inputs = _inputs(name, np.float32, True)
    got = compare(torch, DROPOUT_BUILDS[name], inputs, _call(name, True), train=True, seed=21)
    assert got["next_draw"].shape == (3,)


@pytest.mark.parametrize("name", sorted(DROPOUT_BUILDS))
def test_eval_matches_torch(torch: Any, name: str) -> None:
    inputs = _inputs(name, np.float32, True)
    compare(torch, DROPOUT_BUILDS[name], inputs, _call(name, True), train=False)


def test_eval_without_grad_matches_torch_fast_paths(torch: Any) -> None:
    """torch's fused encoder layer and its nested-tensor stack, under no_grad in eval."""
    rng = np.random.default_rng(2)
    (src,) = arrays(rng, (2, 4, D), dtype=np.float32)
    pad = np.array([[False, False, False, True], [False, False, True, True]])
    outs = []
    for m in (torch, chainrule):
        m.manual_seed(0)
        layer = m.nn.TransformerEncoderLayer(D, HEADS, FF, batch_first=True)
        stack = m.nn.TransformerEncoder(layer, 2, norm=layer.norm1)
        if m is chainrule:
            stack.load_state_dict({k: m.tensor(v.numpy()) for k, v in outs[0][2].items()})
        stack.eval()
        with m.no_grad():
            x = m.tensor(src)
            outs.append(
                (
                    stack(x, src_key_padding_mask=m.tensor(pad)).numpy(),
                    stack.layers[0](x).numpy(),
                    stack.state_dict(),
                )
            )
    for got, want in zip(outs[1][:2], outs[0][:2], strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", sorted(BUILDS))
def test_init_repr_and_names_match_torch(torch: Any, name: str) -> None:
    for m in (torch, chainrule):
        m.manual_seed(4)
    t, c = BUILDS[name](torch), BUILDS[name](chainrule)
    assert repr(c) == repr(t)
    tp, cp = dict(t.named_parameters()), dict(c.named_parameters())
    assert list(cp) == list(tp)
    for key in tp:
        np.testing.assert_array_equal(
            cp[key].detach().numpy(), tp[key].detach().numpy(), err_msg=key
        )


def test_stack_layers_are_deep_copies() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stack = chainrule.nn.TransformerEncoder(encoder_layer(chainrule), 2)
    a, b = stack.layers[0].linear1.weight, stack.layers[1].linear1.weight
    assert a is not b and a.eq(b).all()
    assert stack.num_layers == 2 and stack.mask_check and not stack.use_nested_tensor


ENCODER_LAYER_REPR = """TransformerEncoderLayer(
  (self_attn): MultiheadAttention(
    (out_proj): NonDynamicallyQuantizableLinear(in_features=6, out_features=6, bias=False)
  )
  (linear1): Linear(in_features=6, out_features=10, bias=False)
  (dropout): Dropout(p=0.2, inplace=False)
  (linear2): Linear(in_features=10, out_features=6, bias=False)
  (norm1): LayerNorm((6,), eps=1e-05, elementwise_affine=True, bias=False)
  (norm2): LayerNorm((6,), eps=1e-05, elementwise_affine=True, bias=False)
  (dropout1): Dropout(p=0.2, inplace=False)
  (dropout2): Dropout(p=0.2, inplace=False)
)"""


def test_recorded_repr_and_parameters() -> None:
    layer = encoder_layer(chainrule, dropout=0.2, bias=False)
    assert repr(layer) == ENCODER_LAYER_REPR
    assert [(n, tuple(p.shape)) for n, p in layer.named_parameters()] == [
        ("self_attn.in_proj_weight", (18, 6)),
        ("self_attn.out_proj.weight", (6, 6)),
        ("linear1.weight", (10, 6)),
        ("linear2.weight", (6, 10)),
        ("norm1.weight", (6,)),
        ("norm2.weight", (6,)),
    ]
    assert layer.activation is chainrule.nn.functional.relu and layer.activation_relu_or_gelu == 1


def test_square_subsequent_mask() -> None:
    mask = chainrule.nn.Transformer.generate_square_subsequent_mask(3)
    inf = float("inf")
    assert mask.tolist() == [[0.0, -inf, -inf], [0.0, 0.0, -inf], [0.0, 0.0, 0.0]]
    assert (
        chainrule.nn.Transformer.generate_square_subsequent_mask(2, dtype=chainrule.float64).dtype
        == chainrule.float64
    )


def test_square_subsequent_mask_matches_torch(torch: Any) -> None:
    for sz in (0, 1, 4):
        want = torch.nn.Transformer.generate_square_subsequent_mask(sz).numpy()
        np.testing.assert_array_equal(
            chainrule.nn.Transformer.generate_square_subsequent_mask(sz).numpy(), want
        )


def test_causal_mask_detected_like_torch() -> None:
    """A mask equal to the causal mask gives the same result as the is_causal hint."""
    chainrule.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stack = chainrule.nn.TransformerEncoder(encoder_layer(chainrule, dropout=0.0), 1)
    x = chainrule.randn(3, 1, D)
    mask = chainrule.nn.Transformer.generate_square_subsequent_mask(3)
    np.testing.assert_allclose(
        stack(x, mask).detach().numpy(), stack(x, mask, is_causal=True).detach().numpy()
    )


WARNING = (
    "enable_nested_tensor is True, but self.use_nested_tensor is False because "
    "encoder_layer.self_attn.batch_first was not True(use batch_first for better inference "
    "performance)"
)


def _warnings(m: Any) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m.nn.TransformerEncoder(encoder_layer(m), 1)
        m.nn.TransformerEncoder(encoder_layer(m, batch_first=True), 1)
        m.nn.TransformerEncoder(encoder_layer(m), 1, enable_nested_tensor=False)
    return [str(w.message) for w in caught]


def test_nested_tensor_warning() -> None:
    assert _warnings(chainrule) == [WARNING]


def test_nested_tensor_warning_matches_torch(torch: Any) -> None:
    assert _warnings(torch) == [WARNING]


ERRORS = [
    lambda m: encoder_layer(m, activation="tanh"),
    lambda m: m.nn.Transformer(D, HEADS, 1, 1, FF)(m.zeros(3, 2, D), m.zeros(3, 1, D)),
    lambda m: m.nn.Transformer(D, HEADS, 1, 1, FF)(m.zeros(3, 2, D), m.zeros(3, 2, 4)),
    lambda m: encoder_layer(m)(m.zeros(3, 2, D), src_mask=m.zeros(3, 3).long()),
]
MESSAGES = [
    ("RuntimeError", "activation should be relu/gelu, not tanh"),
    ("RuntimeError", "the batch number of src and tgt must be equal"),
    ("RuntimeError", "the feature number of src and tgt must be equal to d_model"),
    ("AssertionError", "only bool and floating types of src_mask are supported"),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(i: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert error(lambda: ERRORS[i](chainrule)) == MESSAGES[i]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_torch(torch: Any, i: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert error(lambda: ERRORS[i](torch)) == MESSAGES[i]


def test_gradcheck_tiny_layers() -> None:
    chainrule.manual_seed(0)
    enc = chainrule.nn.TransformerEncoderLayer(4, 2, 3, dropout=0.0).double()
    dec = chainrule.nn.TransformerDecoderLayer(4, 2, 3, dropout=0.0, norm_first=True).double()
    rng = np.random.default_rng(0)
    src, tgt = (chainrule.tensor(a, requires_grad=True) for a in arrays(rng, (3, 1, 4), (2, 1, 4)))
    pad = chainrule.tensor([[False, False, True]])
    assert gradcheck(lambda s: enc(s, src_key_padding_mask=pad), (src,))
    assert gradcheck(
        lambda t, s: dec(
            t,
            s,
            tgt_is_causal=True,
            tgt_mask=chainrule.nn.Transformer.generate_square_subsequent_mask(2).double(),
        ),
        (tgt, src),
    )


def test_float64_factory_kwargs_init_matches_torch(torch: Any) -> None:
    """dtype= reaches every parameter, and float64 draws are torch's too."""
    build = quiet(lambda m: m.nn.Transformer(D, HEADS, 1, 1, FF, dtype=m.float64))
    for m in (torch, chainrule):
        m.manual_seed(3)
    t, c = build(torch), build(chainrule)
    for (tn, tp), (cn, cp) in zip(t.named_parameters(), c.named_parameters(), strict=True):
        assert cn == tn and cp.dtype == chainrule.float64
        np.testing.assert_array_equal(cp.detach().numpy(), tp.detach().numpy(), err_msg=tn)
