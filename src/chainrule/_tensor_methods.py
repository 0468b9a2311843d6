"""Tensor's op methods and operators, in one table.

`_tensor.py` holds a tensor's state and the rules about it; the ops live in the
op library (`_ops/`, and a few in `nn.functional` and `_creation`). This table
says which op each method is: `x.add(y)` is `arithmetic.add(x, y)`, `x + y` is
`operators.add_operator(x, y)`, `x.add_(y)` is `inplace_forms.add_(x, y)`.
Where a method differs from the function of the same name (its errors name
only the arguments after `self`, it takes `x.flip(0, 1)` as well as a tuple, or
the tensor is not the first argument of the function) it is the op module's
`<name>_method`.

At import, `chainrule/__init__.py` runs `bind()`: it copies every entry onto
Tensor, so a method call costs what it did when the op modules set them.

Type checkers see these methods through `_tensor_surface.pyi`, Tensor's base
class when type checking (see `_tensor.py`): each entry with the signature mypy
infers for it here. After changing this table or an op's signature, rewrite it
with `python scripts/make_tensor_stub.py` (tests/test_typing.py checks it is up
to date). mypy cannot take this class itself as that base: the op modules use
tensor methods in their module-level rules, before the table could be inferred.
"""

from __future__ import annotations

from types import FunctionType
from typing import TYPE_CHECKING

from . import _creation as creation
from ._ops.elementwise import (
    arithmetic,
    binary_math,
    bitwise,
    clamping,
    compare,
    conditional,
    division,
    exp_log,
    inplace_forms,
    operators,
    rounding,
    ternary,
    trig,
)
from ._ops.indexing import gather_scatter, getitem, masked, take_along, writes
from ._ops.linalg import (
    decompositions,
    exponential,
    geometry,
    matrix_multiply,
    products,
    spectral,
)
from ._ops.reduction import extrema, logical, moments, product, scans, sorting, sum_mean
from ._ops.shape import diagonals, rearrange, splitting, views
from ._ops.special import bessel, functions
from ._tensor import Tensor
from .nn.functional import _activation_softmax as activation

__all__ = ["TensorMethods", "bind"]


class TensorMethods:
    """The methods Tensor gets from the op library (see the module's docstring)."""

    __slots__ = ()

    # --- operators -------------------------------------------------------------------------
    __add__ = operators.add_operator
    __radd__ = operators.radd_operator
    __iadd__ = inplace_forms.add_
    __sub__ = operators.sub_operator
    __rsub__ = operators.rsub_operator
    __isub__ = inplace_forms.sub_
    __mul__ = operators.mul_operator
    __rmul__ = operators.rmul_operator
    __imul__ = inplace_forms.mul_
    __truediv__ = operators.truediv_operator
    __rtruediv__ = operators.rtruediv_operator
    __itruediv__ = inplace_forms.div_
    __floordiv__ = division.floordiv_operator
    __rfloordiv__ = division.rfloordiv_operator
    __ifloordiv__ = division.ifloordiv_operator
    __mod__ = division.mod_operator
    __rmod__ = division.rmod_operator
    __imod__ = division.imod_operator
    __pow__ = operators.pow_operator
    __rpow__ = operators.rpow_operator
    __matmul__ = matrix_multiply.matmul_operator
    __rmatmul__ = matrix_multiply.rmatmul_operator
    __neg__ = arithmetic.neg
    __pos__ = operators.pos_operator
    __abs__ = rounding.abs
    # Elementwise, as in PyTorch: `a == b` is a bool tensor (Tensor hashes by identity).
    __eq__ = operators.eq_operator  # type: ignore[assignment]
    __ne__ = operators.ne_operator  # type: ignore[assignment]
    __lt__ = operators.lt_operator
    __le__ = operators.le_operator
    __gt__ = operators.gt_operator
    __ge__ = operators.ge_operator
    __invert__ = bitwise.bitwise_not
    __and__ = operators.and_operator
    __rand__ = operators.rand_operator
    __iand__ = bitwise.iand_operator
    __or__ = operators.or_operator
    __ror__ = operators.ror_operator
    __ior__ = bitwise.ior_operator
    __xor__ = operators.xor_operator
    __rxor__ = operators.rxor_operator
    __ixor__ = bitwise.ixor_operator
    __lshift__ = bitwise.lshift_operator
    __rlshift__ = bitwise.rlshift_operator
    __ilshift__ = bitwise.ilshift_operator
    __rshift__ = bitwise.rshift_operator
    __rrshift__ = bitwise.rrshift_operator
    __irshift__ = bitwise.irshift_operator
    __getitem__ = getitem.getitem
    __setitem__ = writes.setitem

    # --- elementwise: arithmetic -----------------------------------------------------------
    add = arithmetic.add
    add_ = inplace_forms.add_
    sub = arithmetic.sub
    sub_ = inplace_forms.sub_
    subtract_ = inplace_forms.sub_
    mul = arithmetic.mul
    mul_ = inplace_forms.mul_
    multiply_ = inplace_forms.mul_
    div = arithmetic.div
    div_ = inplace_forms.div_
    divide_ = inplace_forms.div_
    neg = arithmetic.neg
    neg_ = inplace_forms.neg_
    negative_ = inplace_forms.negative_
    positive = rounding.positive
    pow = arithmetic.pow
    square = arithmetic.square
    square_ = inplace_forms.square_
    reciprocal = exp_log.reciprocal
    reciprocal_ = inplace_forms.reciprocal_
    lerp = ternary.lerp_method
    lerp_ = ternary.lerp_
    addcmul = ternary.addcmul_method
    addcmul_ = ternary.addcmul_
    addcdiv = ternary.addcdiv_method
    addcdiv_ = ternary.addcdiv_

    # --- elementwise: division that rounds, remainders --------------------------------------
    floor_divide = division.floor_divide_method
    floor_divide_ = division.floor_divide_
    remainder = division.remainder_method
    remainder_ = division.remainder_
    fmod = division.fmod_method
    fmod_ = division.fmod_

    # --- elementwise: exp and log ----------------------------------------------------------
    exp = exp_log.exp
    exp_ = inplace_forms.exp_
    exp2 = exp_log.exp2
    exp2_ = inplace_forms.exp2_
    expm1 = exp_log.expm1
    expm1_ = inplace_forms.expm1_
    log = exp_log.log
    log_ = inplace_forms.log_
    log2 = exp_log.log2
    log2_ = inplace_forms.log2_
    log10 = exp_log.log10
    log10_ = inplace_forms.log10_
    log1p = exp_log.log1p
    log1p_ = inplace_forms.log1p_
    sqrt = exp_log.sqrt
    sqrt_ = inplace_forms.sqrt_
    rsqrt = exp_log.rsqrt
    rsqrt_ = inplace_forms.rsqrt_
    sigmoid = exp_log.sigmoid
    sigmoid_ = inplace_forms.sigmoid_
    logit = exp_log.logit
    logit_ = inplace_forms.logit_

    # --- elementwise: trigonometric and hyperbolic -----------------------------------------
    sin = trig.sin
    sin_ = inplace_forms.sin_
    cos = trig.cos
    cos_ = inplace_forms.cos_
    tan = trig.tan
    tan_ = inplace_forms.tan_
    asin = trig.asin
    asin_ = inplace_forms.asin_
    arcsin = trig.arcsin
    arcsin_ = inplace_forms.arcsin_
    acos = trig.acos
    acos_ = inplace_forms.acos_
    arccos = trig.arccos
    arccos_ = inplace_forms.arccos_
    atan = trig.atan
    atan_ = inplace_forms.atan_
    arctan = trig.arctan
    arctan_ = inplace_forms.arctan_
    sinh = trig.sinh
    sinh_ = inplace_forms.sinh_
    cosh = trig.cosh
    cosh_ = inplace_forms.cosh_
    tanh = trig.tanh
    tanh_ = inplace_forms.tanh_
    asinh = trig.asinh
    asinh_ = inplace_forms.asinh_
    arcsinh = trig.arcsinh
    arcsinh_ = inplace_forms.arcsinh_
    acosh = trig.acosh
    acosh_ = inplace_forms.acosh_
    arccosh = trig.arccosh
    arccosh_ = inplace_forms.arccosh_
    atanh = trig.atanh
    atanh_ = inplace_forms.atanh_
    arctanh = trig.arctanh
    arctanh_ = inplace_forms.arctanh_
    deg2rad = trig.deg2rad
    deg2rad_ = inplace_forms.deg2rad_
    rad2deg = trig.rad2deg
    rad2deg_ = inplace_forms.rad2deg_
    sinc = trig.sinc
    sinc_ = inplace_forms.sinc_

    # --- elementwise: binary math ----------------------------------------------------------
    atan2 = binary_math.atan2_method
    atan2_ = binary_math.atan2_
    arctan2 = binary_math.arctan2_method
    arctan2_ = binary_math.arctan2_
    hypot = binary_math.hypot_method
    hypot_ = binary_math.hypot_
    copysign = binary_math.copysign_method
    copysign_ = binary_math.copysign_
    xlogy = binary_math.xlogy_method
    xlogy_ = binary_math.xlogy_
    logaddexp = binary_math.logaddexp_method
    logaddexp2 = binary_math.logaddexp2_method
    nextafter = binary_math.nextafter_method
    nextafter_ = binary_math.nextafter_
    heaviside = binary_math.heaviside_method
    heaviside_ = binary_math.heaviside_
    ldexp = binary_math.ldexp_method
    ldexp_ = binary_math.ldexp_
    float_power = binary_math.float_power_method
    float_power_ = binary_math.float_power_

    # --- elementwise: rounding, signs, predicates ------------------------------------------
    abs = rounding.abs
    abs_ = inplace_forms.abs_
    absolute = rounding.absolute
    absolute_ = inplace_forms.absolute_
    sign = rounding.sign
    sign_ = inplace_forms.sign_
    sgn = rounding.sgn
    sgn_ = rounding.sgn_
    signbit = rounding.signbit
    floor = rounding.floor
    floor_ = rounding.floor_
    ceil = rounding.ceil
    ceil_ = rounding.ceil_
    trunc = rounding.trunc
    trunc_ = rounding.trunc_
    fix = rounding.fix
    fix_ = rounding.fix_
    round = rounding.round
    round_ = rounding.round_
    frac = rounding.frac
    frac_ = rounding.frac_
    nan_to_num = rounding.nan_to_num
    nan_to_num_ = rounding.nan_to_num_
    isnan = rounding.isnan
    isinf = rounding.isinf
    isposinf = rounding.isposinf
    isneginf = rounding.isneginf
    isfinite = rounding.isfinite
    isreal = rounding.isreal

    # --- elementwise: clamping -------------------------------------------------------------
    clamp = clamping.clamp
    clamp_ = clamping.clamp_
    clip = clamping.clip
    clip_ = clamping.clip_
    clamp_min = clamping.clamp_min
    clamp_min_ = clamping.clamp_min_
    clamp_max = clamping.clamp_max
    clamp_max_ = clamping.clamp_max_
    relu = clamping.relu
    relu_ = inplace_forms.relu_

    # --- elementwise: comparisons and extremes ---------------------------------------------
    eq = compare.eq
    eq_ = compare.eq_
    ne = compare.ne
    ne_ = compare.ne_
    not_equal = compare.ne
    not_equal_ = compare.ne_
    lt = compare.lt
    lt_ = compare.lt_
    less = compare.lt
    less_ = compare.lt_
    le = compare.le
    le_ = compare.le_
    less_equal = compare.le
    less_equal_ = compare.le_
    gt = compare.gt
    gt_ = compare.gt_
    greater = compare.gt
    greater_ = compare.gt_
    ge = compare.ge
    ge_ = compare.ge_
    greater_equal = compare.ge
    greater_equal_ = compare.ge_
    maximum = compare.maximum_method
    minimum = compare.minimum_method
    fmax = compare.fmax_method
    fmin = compare.fmin_method
    isclose = compare.isclose_method
    allclose = compare.allclose_method
    equal = compare.equal_method

    # --- elementwise: logical and bitwise --------------------------------------------------
    logical_not = bitwise.logical_not
    logical_and = bitwise.logical_and
    logical_or = bitwise.logical_or
    logical_xor = bitwise.logical_xor
    bitwise_not = bitwise.bitwise_not
    bitwise_and = bitwise.bitwise_and
    bitwise_and_ = bitwise.bitwise_and_
    bitwise_or = bitwise.bitwise_or
    bitwise_or_ = bitwise.bitwise_or_
    bitwise_xor = bitwise.bitwise_xor
    bitwise_xor_ = bitwise.bitwise_xor_
    bitwise_left_shift = bitwise.bitwise_left_shift_method
    bitwise_left_shift_ = bitwise.bitwise_left_shift_
    bitwise_right_shift = bitwise.bitwise_right_shift_method
    bitwise_right_shift_ = bitwise.bitwise_right_shift_

    # --- elementwise: where ----------------------------------------------------------------
    where = conditional.where_method

    # --- special functions -----------------------------------------------------------------
    erf = functions.erf
    erf_ = functions.erf_
    erfc = functions.erfc
    erfc_ = functions.erfc_
    erfinv = functions.erfinv
    erfinv_ = functions.erfinv_
    lgamma = functions.lgamma
    lgamma_ = functions.lgamma_
    digamma = functions.digamma
    digamma_ = functions.digamma_
    polygamma = functions.polygamma_method
    polygamma_ = functions.polygamma_
    mvlgamma = functions.mvlgamma
    mvlgamma_ = functions.mvlgamma_
    i0 = bessel.i0
    i0_ = bessel.i0_

    # --- reductions ------------------------------------------------------------------------
    sum = sum_mean.sum
    nansum = sum_mean.nansum
    mean = sum_mean.mean
    nanmean = sum_mean.nanmean
    logsumexp = sum_mean.logsumexp
    sum_to_size = sum_mean.sum_to_size
    prod = product.prod_method
    norm = product.norm
    std = moments.std
    var = moments.var
    max = extrema.max_method
    min = extrema.min_method
    amax = extrema.amax
    amin = extrema.amin
    aminmax = extrema.aminmax
    argmax = extrema.argmax
    argmin = extrema.argmin
    all = logical.all
    any = logical.any
    count_nonzero = logical.count_nonzero
    sort = sorting.sort_method
    argsort = sorting.argsort_method
    msort = sorting.msort
    topk = sorting.topk
    kthvalue = sorting.kthvalue
    median = sorting.median
    nanmedian = sorting.nanmedian
    cumsum = scans.cumsum
    cumprod = scans.cumprod
    cummax = scans.cummax
    cummin = scans.cummin
    logcumsumexp = scans.logcumsumexp
    diff = scans.diff

    # --- shape: views and copies -----------------------------------------------------------
    view = views.view
    view_as = views.view_as
    reshape = views.reshape
    reshape_as = views.reshape_as
    flatten = views.flatten
    unflatten = rearrange.unflatten
    squeeze = views.squeeze
    unsqueeze = views.unsqueeze
    expand = views.expand
    expand_as = views.expand_as
    transpose = views.transpose
    swapaxes = views.swapaxes
    swapdims = views.swapdims
    t = views.t
    permute = views.permute
    movedim = rearrange.movedim
    moveaxis = rearrange.moveaxis
    narrow = views.narrow
    clone = views.clone
    contiguous = views.contiguous
    if TYPE_CHECKING:  # (what mypy infers for property(f) is Any)

        @property
        def T(self) -> Tensor:
            """The dims in reverse order (a view)."""

        @property
        def mT(self) -> Tensor:
            """The last two dims swapped (a view)."""

    else:
        T = property(views.reversed_dims)
        mT = property(views.matrix_transpose)

    # --- shape: rearranging, repeating, splitting ------------------------------------------
    flip = rearrange.flip_method
    fliplr = rearrange.fliplr
    flipud = rearrange.flipud
    roll = rearrange.roll
    rot90 = rearrange.rot90
    repeat = rearrange.repeat
    repeat_interleave = rearrange.repeat_interleave
    tile = rearrange.tile_method
    split = splitting.split_method
    chunk = splitting.chunk
    tensor_split = splitting.tensor_split
    hsplit = splitting.hsplit
    vsplit = splitting.vsplit
    dsplit = splitting.dsplit

    # --- shape: diagonals and triangles ----------------------------------------------------
    diag = diagonals.diag
    diag_embed = diagonals.diag_embed
    diagonal = diagonals.diagonal
    trace = diagonals.trace
    tril = diagonals.tril
    tril_ = diagonals.tril_
    triu = diagonals.triu
    triu_ = diagonals.triu_

    # --- dtype conversion ------------------------------------------------------------------
    to = views.to
    type_as = views.type_as
    float = views.to_float
    double = views.to_double
    half = views.to_half
    long = views.to_long
    int = views.to_int
    short = views.to_short
    char = views.to_char
    byte = views.to_byte
    bool = views.to_bool

    # --- indexing --------------------------------------------------------------------------
    select = getitem.select
    unbind = getitem.unbind
    take = take_along.take
    take_along_dim = take_along.take_along_dim
    gather = gather_scatter.gather
    scatter = gather_scatter.scatter
    scatter_ = gather_scatter.scatter_
    scatter_add = gather_scatter.scatter_add
    scatter_add_ = gather_scatter.scatter_add_
    index_select = gather_scatter.index_select
    index_add = gather_scatter.index_add
    index_add_ = gather_scatter.index_add_
    index_copy = gather_scatter.index_copy
    index_copy_ = gather_scatter.index_copy_
    index_fill = gather_scatter.index_fill
    index_fill_ = gather_scatter.index_fill_
    index_put = masked.index_put
    index_put_ = masked.index_put_
    masked_fill = masked.masked_fill
    masked_fill_ = masked.masked_fill_
    masked_scatter = masked.masked_scatter
    masked_scatter_ = masked.masked_scatter_
    masked_select = masked.masked_select
    nonzero = masked.nonzero
    argwhere = masked.argwhere
    copy_ = writes.copy_
    fill_ = writes.fill_
    zero_ = writes.zero_

    # --- linear algebra --------------------------------------------------------------------
    matmul = matrix_multiply.matmul
    mm = matrix_multiply.mm
    bmm = matrix_multiply.bmm
    mv = matrix_multiply.mv
    dot = matrix_multiply.dot
    outer = matrix_multiply.outer
    inner = products.inner
    vdot = products.vdot
    kron = products.kron
    addmm = products.addmm
    addmv = products.addmv
    addbmm = products.addbmm
    baddbmm = products.baddbmm
    matrix_power = products.matrix_power
    matrix_exp = exponential.matrix_exp
    cross = geometry.cross
    det = decompositions.det
    slogdet = decompositions.slogdet
    logdet = decompositions.logdet
    inverse = decompositions.inverse
    cholesky = decompositions.cholesky
    qr = decompositions.qr
    svd = spectral.svd
    pinverse = spectral.pinverse

    # --- neural-network functions ----------------------------------------------------------
    softmax = activation.tensor_softmax
    log_softmax = activation.tensor_log_softmax

    # --- new tensors like this one ---------------------------------------------------------
    new_tensor = creation.new_tensor
    new_full = creation.new_full
    new_zeros = creation.new_zeros
    new_ones = creation.new_ones
    new_empty = creation.new_empty


def bind() -> None:
    """Copy the table onto Tensor (once, at import): plain functions and properties."""
    for name, member in vars(TensorMethods).items():
        if isinstance(member, FunctionType | property):
            if name in Tensor.__dict__:
                raise RuntimeError(f"Tensor.{name} is defined twice: in _tensor.py and the table")
            setattr(Tensor, name, member)
