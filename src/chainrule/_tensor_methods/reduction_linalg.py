"""Reductions, linear algebra, neural-network and sampling methods: `x.sum(0)`, `x.mm(y)`,
`x.normal_()`, ..."""

from __future__ import annotations

from .._lazy import TYPING, LazyModule

if TYPING:
    from .. import (
        _random_distributions as distributions,
    )
    from .. import (
        _random_samplers as samplers,
    )
    from .._ops.linalg import (
        correlation,
        decompositions,
        exponential,
        factored_solve,
        fused_products,
        geometry,
        householder,
        lu_decomposition,
        matrix_multiply,
        products,
        products_inplace,
        spectral,
    )
    from .._ops.reduction import (
        counting,
        extrema,
        frequency,
        histograms,
        logical,
        moments,
        norm_forms,
        product,
        quantiles,
        scans,
        sorting,
        sum_mean,
    )
    from ..nn.functional import (
        _activation,
    )
    from ..nn.functional import (
        _activation_softmax as activation,
    )
else:  # each family is imported when one of its methods is first used (_lazy.py)
    distributions = LazyModule("chainrule._random_distributions")
    samplers = LazyModule("chainrule._random_samplers")
    correlation = LazyModule("chainrule._ops.linalg.correlation")
    decompositions = LazyModule("chainrule._ops.linalg.decompositions")
    exponential = LazyModule("chainrule._ops.linalg.exponential")
    factored_solve = LazyModule("chainrule._ops.linalg.factored_solve")
    fused_products = LazyModule("chainrule._ops.linalg.fused_products")
    geometry = LazyModule("chainrule._ops.linalg.geometry")
    householder = LazyModule("chainrule._ops.linalg.householder")
    lu_decomposition = LazyModule("chainrule._ops.linalg.lu_decomposition")
    matrix_multiply = LazyModule("chainrule._ops.linalg.matrix_multiply")
    products = LazyModule("chainrule._ops.linalg.products")
    spectral = LazyModule("chainrule._ops.linalg.spectral")
    counting = LazyModule("chainrule._ops.reduction.counting")
    histograms = LazyModule("chainrule._ops.reduction.histograms")
    extrema = LazyModule("chainrule._ops.reduction.extrema")
    frequency = LazyModule("chainrule._ops.reduction.frequency")
    logical = LazyModule("chainrule._ops.reduction.logical")
    moments = LazyModule("chainrule._ops.reduction.moments")
    product = LazyModule("chainrule._ops.reduction.product")
    quantiles = LazyModule("chainrule._ops.reduction.quantiles")
    scans = LazyModule("chainrule._ops.reduction.scans")
    sorting = LazyModule("chainrule._ops.reduction.sorting")
    sum_mean = LazyModule("chainrule._ops.reduction.sum_mean")
    activation = LazyModule("chainrule.nn.functional._activation_softmax")
    products_inplace = LazyModule("chainrule._ops.linalg.products_inplace")
    norm_forms = LazyModule("chainrule._ops.reduction.norm_forms")
    _activation = LazyModule("chainrule.nn.functional._activation")

__all__ = ["ReductionLinalgMethods"]


class ReductionLinalgMethods:
    """Part of the table of Tensor's methods (see the package docstring)."""

    __slots__ = ()

    # --- reductions ------------------------------------------------------------------------
    sum = sum_mean.sum
    nansum = sum_mean.nansum
    mean = sum_mean.mean
    nanmean = sum_mean.nanmean
    logsumexp = sum_mean.logsumexp
    sum_to_size = sum_mean.sum_to_size
    bincount = counting.bincount
    histc = counting.histc
    histogram = histograms.histogram
    prod = product.prod_method
    norm = product.norm
    dist = norm_forms.dist_method
    renorm = norm_forms.renorm
    renorm_ = norm_forms.renorm_
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
    quantile = quantiles.quantile_method
    nanquantile = quantiles.nanquantile_method
    mode = frequency.mode_method
    unique = frequency.unique
    unique_consecutive = frequency.unique_consecutive
    cumsum = scans.cumsum
    cumsum_ = scans.cumsum_
    cumprod = scans.cumprod
    cumprod_ = scans.cumprod_
    cummax = scans.cummax
    cummin = scans.cummin
    logcumsumexp = scans.logcumsumexp
    diff = scans.diff

    # --- linear algebra --------------------------------------------------------------------
    matmul = matrix_multiply.matmul
    mm = matrix_multiply.mm
    bmm = matrix_multiply.bmm
    mv = matrix_multiply.mv
    dot = matrix_multiply.dot
    outer = matrix_multiply.outer
    cov = correlation.cov
    corrcoef = correlation.corrcoef
    ger = matrix_multiply.outer
    inner = products.inner
    vdot = products.vdot
    kron = products.kron
    addmm = fused_products.addmm
    addmv = fused_products.addmv
    addbmm = fused_products.addbmm
    baddbmm = fused_products.baddbmm
    addr = products_inplace.addr
    addmm_ = products_inplace.addmm_
    addmv_ = products_inplace.addmv_
    addbmm_ = products_inplace.addbmm_
    baddbmm_ = products_inplace.baddbmm_
    addr_ = products_inplace.addr_
    matrix_power = products.matrix_power
    matrix_exp = exponential.matrix_exp
    cross = geometry.cross
    det = decompositions.det
    slogdet = decompositions.slogdet
    logdet = decompositions.logdet
    inverse = decompositions.inverse
    cholesky = decompositions.cholesky
    qr = decompositions.qr
    lu = lu_decomposition.tensor_lu
    lu_solve = lu_decomposition.lu_solve
    cholesky_inverse = factored_solve.cholesky_inverse
    cholesky_solve = factored_solve.cholesky_solve
    triangular_solve = factored_solve.triangular_solve
    orgqr = householder.orgqr
    svd = spectral.svd
    pinverse = spectral.pinverse

    # --- neural-network functions ----------------------------------------------------------
    softmax = activation.tensor_softmax
    log_softmax = activation.tensor_log_softmax
    hardshrink = _activation.hardshrink_method
    prelu = _activation.prelu_method

    # --- random sampling -------------------------------------------------------------------
    uniform_ = samplers.uniform_
    normal_ = samplers.normal_
    random_ = samplers.random_
    bernoulli_ = samplers.bernoulli_
    exponential_ = samplers.exponential_
    geometric_ = samplers.geometric_
    log_normal_ = samplers.log_normal_
    cauchy_ = samplers.cauchy_
    bernoulli = distributions.bernoulli
    multinomial = distributions.multinomial
