"""Elementwise and special-function methods: `x.exp()`, `x.add_(y)`, `x.clamp(0)`, ..."""

from __future__ import annotations

from .._lazy import TYPING, LazyModule

if TYPING:
    from .._ops.elementwise import (
        arithmetic,
        binary_math,
        bitwise,
        clamping,
        compare,
        conditional,
        division,
        exp_log,
        inplace_forms,
        number_theory,
        rounding,
        ternary,
        trig,
    )
    from .._ops.special import (
        bessel,
        functions,
        incomplete,
    )
else:  # each family is imported when one of its methods is first used (_lazy.py)
    arithmetic = LazyModule("chainrule._ops.elementwise.arithmetic")
    binary_math = LazyModule("chainrule._ops.elementwise.binary_math")
    bitwise = LazyModule("chainrule._ops.elementwise.bitwise")
    clamping = LazyModule("chainrule._ops.elementwise.clamping")
    compare = LazyModule("chainrule._ops.elementwise.compare")
    conditional = LazyModule("chainrule._ops.elementwise.conditional")
    division = LazyModule("chainrule._ops.elementwise.division")
    exp_log = LazyModule("chainrule._ops.elementwise.exp_log")
    inplace_forms = LazyModule("chainrule._ops.elementwise.inplace_forms")
    rounding = LazyModule("chainrule._ops.elementwise.rounding")
    ternary = LazyModule("chainrule._ops.elementwise.ternary")
    trig = LazyModule("chainrule._ops.elementwise.trig")
    bessel = LazyModule("chainrule._ops.special.bessel")
    functions = LazyModule("chainrule._ops.special.functions")
    number_theory = LazyModule("chainrule._ops.elementwise.number_theory")
    incomplete = LazyModule("chainrule._ops.special.incomplete")

__all__ = ["ElementwiseMethods"]


class ElementwiseMethods:
    """Part of the table of Tensor's methods (see the package docstring)."""

    __slots__ = ()

    # --- elementwise: arithmetic -----------------------------------------------------------
    add = arithmetic.add
    add_ = inplace_forms.add_
    sub = arithmetic.sub
    sub_ = inplace_forms.sub_
    subtract = arithmetic.sub
    subtract_ = inplace_forms.sub_
    mul = arithmetic.mul
    mul_ = inplace_forms.mul_
    multiply = arithmetic.mul
    multiply_ = inplace_forms.mul_
    div = arithmetic.div
    div_ = inplace_forms.div_
    divide = arithmetic.div
    divide_ = inplace_forms.div_
    true_divide = arithmetic.div
    true_divide_ = inplace_forms.div_
    neg = arithmetic.neg
    neg_ = inplace_forms.neg_
    negative = arithmetic.neg
    negative_ = inplace_forms.negative_
    positive = rounding.positive
    pow = arithmetic.pow
    pow_ = inplace_forms.pow_
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
    ldexp_ = binary_math.ldexp_inplace_method
    gcd = number_theory.gcd_method
    gcd_ = number_theory.gcd_
    lcm = number_theory.lcm_method
    lcm_ = number_theory.lcm_
    frexp = number_theory.frexp
    igamma = incomplete.igamma_method
    igamma_ = incomplete.igamma_
    igammac = incomplete.igammac_method
    igammac_ = incomplete.igammac_
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
    logical_not_ = bitwise.logical_not_
    logical_and = bitwise.logical_and
    logical_and_ = bitwise.logical_and_
    logical_or = bitwise.logical_or
    logical_or_ = bitwise.logical_or_
    logical_xor = bitwise.logical_xor
    logical_xor_ = bitwise.logical_xor_
    bitwise_not = bitwise.bitwise_not
    bitwise_not_ = bitwise.bitwise_not_
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
