"""The in-place samplers: `uniform_`, `normal_`, `random_`, `bernoulli_`, `exponential_`,
`geometric_`, `log_normal_` and `cauchy_`, drawing PyTorch's numbers.

Each checks its arguments as PyTorch does before drawing anything, then draws the
tensor's elements in the order they lie in memory (as PyTorch's loops visit them) and
writes them in place. In a graph, the tensor gets the sampler's node (`NormalBackward0`,
...), whose gradient is zero: the values do not depend on the old ones.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from . import _float_math as fm
from ._dtype import c_type_name, scalar_name
from ._ops.inplace import apply_inplace
from ._ops.primitive import Primitive
from ._tensor import Tensor
from .random import Generator, _generator_or_default

__all__ = [
    "bernoulli_",
    "cauchy_",
    "exponential_",
    "geometric_",
    "log_normal_",
    "normal_",
    "random_",
    "uniform_",
]

Draw = Callable[[Generator, int], np.ndarray]


def resampled_node(name: str, inputs: tuple[str, ...] = ("self",)) -> Primitive:
    """A sampler's node: its output is `values`, so every input's gradient is zero."""
    return Primitive(
        name,
        lambda *arrays, values: values,
        inputs=inputs,
        grads=tuple((lambda g, n: g * 0) for _ in inputs),
        formulas=tuple("0" for _ in inputs),
    )


_NODES = {
    name: resampled_node(name)
    for name in (
        "UniformBackward0",
        "NormalBackward0",
        "RandomBackward0",
        "RandomBackward1",
        "RandomBackward2",
        "BernoulliBackward2",
        "ExponentialBackward0",
        "GeometricBackward0",
        "LogNormalBackward0",
        "CauchyBackward0",
    )
}
_BERNOULLI_TENSOR = resampled_node("BernoulliBackward1", ("self", "p"))


def in_memory_order(a: np.ndarray, draw: Callable[[int], np.ndarray]) -> np.ndarray:
    """`draw(a.size)` laid out so that consecutive draws fill consecutive memory of `a`."""
    outer_first = sorted(range(a.ndim), key=lambda d: -abs(a.strides[d]))
    flat = draw(a.size)
    permuted = flat.reshape([a.shape[d] for d in outer_first])
    return permuted.transpose(np.argsort(outer_first))


def _sample(
    self: Tensor, node: str, generator: Any, fn: str, draw: Callable[[Generator, int], Any]
) -> Tensor:
    """Fill `self` with `draw(generator, count)` (float64 or exact values), in memory order."""
    source = _generator_or_default(generator, fn)
    if self._data.size == 0:
        return self
    dtype = self._data.dtype

    def compute(old: Tensor) -> Tensor:
        values = in_memory_order(self._data, lambda count: draw(source, count))
        return _NODES[node](old, values=values.astype(dtype, copy=False))

    return apply_inplace(self, compute)


def _cpp(value: float) -> str:
    """A double as C++ streams print it (six significant digits)."""
    return f"{value:g}"


def _require_float(self: Tensor, kernel: str) -> None:
    if self._data.dtype.kind not in "fc":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(self)}'")


def _real_view(self: Tensor) -> np.ndarray:
    """A complex tensor's memory as real numbers (PyTorch samples complex ones that way)."""
    data = self._data
    return data.view(data.real.dtype) if data.dtype.kind == "c" else data


# --- uniform_ and normal_ ----------------------------------------------------------------


def uniform_(
    self: Tensor, from_: float = 0, to: float = 1, *, generator: Generator | None = None
) -> Tensor:
    """Fill with values uniform on [from, to)."""
    _require_float(self, "check_uniform_bounds")
    real = _real_view(self)
    info = np.finfo(real.dtype)
    for name, bound in (("from", from_), ("to", to)):
        if not float(info.min) <= bound <= float(info.max):
            raise RuntimeError(f"{name} is out of bounds for {c_type_name(real.dtype)}")
    if from_ > to:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={_cpp(from_)} > "
            f"to={_cpp(to)}"
        )
    if to - from_ > float(info.max):
        raise RuntimeError(
            f"uniform_ expects to-from <= std::numeric_limits<{scalar_name(real.dtype)}>::max(), "
            f"but found to={_cpp(to)} and from={_cpp(from_)} which result in to-from to "
            "exceed the limit"
        )

    def draw(source: Generator, count: int) -> np.ndarray:
        return source._uniform((count,), from_, to, real.dtype)

    return _fill_real(self, "UniformBackward0", generator, "uniform_", draw)


def normal_(
    self: Tensor, mean: float = 0, std: float = 1, *, generator: Generator | None = None
) -> Tensor:
    """Fill with normal values of mean `mean` and standard deviation `std`."""
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_cpp(std)}")
    _require_float(self, "normal_kernel_cpu")
    real = _real_view(self)
    if real is not self._data:
        std = std / math.sqrt(2)  # each of the two parts gets half the variance
    contiguous = real.flags.c_contiguous

    def draw(source: Generator, count: int) -> np.ndarray:
        return source._normal((count,), real.dtype, mean, std, contiguous)

    return _fill_real(self, "NormalBackward0", generator, "normal_", draw)


def _fill_real(self: Tensor, node: str, generator: Any, fn: str, draw: Draw) -> Tensor:
    """`_sample` for samplers that draw complex tensors as pairs of real numbers."""
    if self._data.dtype.kind != "c":
        return _sample(self, node, generator, fn, draw)

    def pairs(source: Generator, count: int) -> np.ndarray:
        return draw(source, 2 * count).view(self._data.dtype)

    return _sample(self, node, generator, fn, pairs)


# --- the samplers built on float64 uniforms ----------------------------------------------


def _unit_doubles(source: Generator, count: int) -> np.ndarray:
    return source._uniform((count,))


def exponential_(self: Tensor, lambd: float = 1, *, generator: Generator | None = None) -> Tensor:
    """Fill with exponential values of rate `lambd`: -log(1 - u) / lambd."""
    if self._data.dtype.kind != "f":
        raise RuntimeError(
            "Exponential distribution is a continuous probability distribution. dtype must be "
            f"a floating point but you specified {scalar_name(self)}"
        )
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_cpp(lambd)}")

    def draw(source: Generator, count: int) -> np.ndarray:
        return (-1.0 / lambd) * fm.log1p(-_unit_doubles(source, count))

    return _sample(self, "ExponentialBackward0", generator, "exponential_", draw)


def geometric_(self: Tensor, p: float, *, generator: Generator | None = None) -> Tensor:
    """Fill with the number of Bernoulli(p) trials up to the first success."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_cpp(p)}")

    def draw(source: Generator, count: int) -> np.ndarray:
        return np.ceil(fm.log(_unit_doubles(source, count)) / math.log1p(-p))

    return _sample(self, "GeometricBackward0", generator, "geometric_", draw)


def log_normal_(
    self: Tensor, mean: float = 1, std: float = 2, *, generator: Generator | None = None
) -> Tensor:
    """Fill with exp of normal values of mean `mean` and standard deviation `std`."""
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_cpp(std)}")
    _require_float(self, "log_normal_cpu")

    def draw(source: Generator, count: int) -> np.ndarray:
        return fm.exp(fm.fma(source._normal_doubles(count), std, mean))

    return _sample(self, "LogNormalBackward0", generator, "log_normal_", draw)


def cauchy_(
    self: Tensor, median: float = 0, sigma: float = 1, *, generator: Generator | None = None
) -> Tensor:
    """Fill with Cauchy values: median + sigma * tan(pi * (u - 1/2))."""
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_cpp(sigma)}")
    if self._data.dtype.kind != "f":
        raise RuntimeError(
            "Cauchy distribution is a continuous probability distribution. dtype must be a "
            f"floating point but you specified {c_type_name(self)}"
        )

    def draw(source: Generator, count: int) -> np.ndarray:
        tangent = fm.tan(math.pi * (_unit_doubles(source, count) - 0.5))
        return fm.fma(tangent, sigma, median)

    return _sample(self, "CauchyBackward0", generator, "cauchy_", draw)


# --- bernoulli_ --------------------------------------------------------------------------


def bernoulli_(self: Tensor, p: Any = 0.5, *, generator: Generator | None = None) -> Tensor:
    """Fill with 1 with probability `p` (a number, or a tensor of them), else 0."""
    if not isinstance(p, Tensor):
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_cpp(p)}")

        def draw(source: Generator, count: int) -> np.ndarray:
            return _unit_doubles(source, count) < p

        return _sample(self, "BernoulliBackward2", generator, "bernoulli_", draw)
    return _bernoulli_tensor(self, p, _generator_or_default(generator, "bernoulli_"))


_P_IN_RANGE = (
    "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be "
    "improved?  If so, please report an enhancement request to PyTorch.)"
)


def bernoulli_draws(source: Generator, out: np.ndarray, p: np.ndarray) -> np.ndarray:
    """0/1 draws of `out`'s dtype, in `out`'s memory order, with probabilities `p`.

    float64 probabilities are compared with 53-bit uniforms, narrower ones with 24-bit
    uniforms in float32; the first out-of-range probability stops the draws there.
    """
    if p.dtype.kind != "f":
        raise NotImplementedError(
            f"\"bernoulli_tensor_cpu_p_\" not implemented for '{scalar_name(p.dtype)}'"
        )
    work = np.float64 if p.dtype == np.float64 else np.float32
    chances = np.broadcast_to(p, out.shape)
    ordered = in_memory_order(out, lambda count: np.arange(count)).ravel()
    flat_p = chances.ravel()[np.argsort(ordered)]  # the probabilities in draw order
    bad = np.flatnonzero(~((flat_p >= 0) & (flat_p <= 1)))
    if bad.size:
        source._uniform((int(bad[0]),), dtype=work)  # the draws made before the bad one
        raise RuntimeError(_P_IN_RANGE)
    hits = source._uniform((flat_p.size,), dtype=work) < flat_p.astype(work)
    return in_memory_order(out, lambda count: hits).astype(out.dtype)


def _bernoulli_tensor(self: Tensor, p: Tensor, source: Generator) -> Tensor:
    if self._data.size == 0:
        return self

    def compute(old: Tensor) -> Tensor:
        values = bernoulli_draws(source, self._data, p._data)
        return _BERNOULLI_TENSOR(old, p, values=values)

    return apply_inplace(self, compute, operands=(p,))


# --- random_ -----------------------------------------------------------------------------


def random_(self: Tensor, *args: Any, generator: Generator | None = None, **kwargs: Any) -> Tensor:
    """Fill with integers: `random_()` over the dtype's range, `random_(to)` on [0, to),
    `random_(from, to)` on [from, to) (`to=None`: up to the dtype's largest value)."""
    bounds = [*args]
    if "from" in kwargs:
        bounds.insert(0, kwargs.pop("from"))
    if "to" in kwargs:
        bounds.append(kwargs.pop("to"))
    if kwargs:
        raise TypeError(f"random_() got an unexpected keyword argument '{next(iter(kwargs))}'")
    dtype = self._data.dtype
    if not bounds:
        node, draw = "RandomBackward2", _full_range_of(dtype)
    else:
        from_, to = (0, bounds[0]) if len(bounds) == 1 else (bounds[0], bounds[1])
        node = "RandomBackward1" if len(bounds) == 1 else "RandomBackward0"
        draw = _range_of(dtype, int(from_), None if to is None else int(to))
    return _sample(self, node, generator, "random_", draw)


def _full_range_of(dtype: np.dtype) -> Draw:
    """`random_()`: [0, 2**digits] for floats, [0, max] for integers, 0 or 1 for bool."""
    if dtype == np.bool_:
        return lambda source, count: source._random32(count) & np.uint64(1)
    if dtype.kind == "f":
        digits = np.finfo(dtype).nmant + 1
        modulus = np.uint64(2**digits + 1)
        if dtype == np.float64:
            return lambda source, count: source._random64(count) % modulus
        return lambda source, count: source._random32(count) % modulus
    modulus = np.uint64(int(np.iinfo(dtype).max) + 1)
    if dtype.itemsize == 8:
        return lambda source, count: (source._random64(count) % modulus).astype(np.int64)
    return lambda source, count: source._random32(count) % modulus


def _range_of(dtype: np.dtype, from_: int, to: int | None) -> Draw:
    """`random_(from, to)`, checked and adjusted as PyTorch does."""
    if to is not None and from_ >= to:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}"
        )
    if to is None and from_ == -(2**63):
        return lambda source, count: source._random64(count).astype(np.int64)
    if dtype.kind == "f":
        digits = np.finfo(dtype).nmant + 1
        from_ = _exactly_castable(from_, dtype, digits, up=True)
        if to is None:
            last = 2**digits
            if not from_ < last:
                raise RuntimeError(
                    "random_ expects 'from' casted to dtype to be less than or equal to "
                    f"'to_inc' casted to dtype, but got from={from_} > to_inc={last}"
                )
        else:
            to = _exactly_castable(to, dtype, digits, up=False)
            if not from_ < to:
                raise RuntimeError(
                    "random_ expects 'from' casted to dtype to be less than 'to' casted to "
                    f"dtype, but got from={from_} >= to={to}"
                )
            last = to - 1
    else:
        last = (1 if dtype == np.bool_ else int(np.iinfo(dtype).max)) if to is None else to - 1
    _check_in_range(from_, last, dtype)
    low = from_

    def draw(source: Generator, count: int) -> np.ndarray:
        return source._integers(low, last + 1, (count,))

    return draw


def _exactly_castable(value: int, dtype: np.dtype, digits: int, up: bool) -> int:
    """PyTorch's nudge of a `from` (up) or `to` (down) bound whose neighbour rounds past it."""
    step = 1 if up else -1
    neighbour = int(dtype.type(value + step))
    if not -(2**63) <= neighbour < 2**63:
        neighbour = -(2**63)  # the CPU's answer when a conversion to int64 overflows
    if (neighbour < value) if up else (neighbour >= value):
        n = abs(value + step).bit_length() - 1
        return neighbour + step * (1 << (n - digits + 1))
    return value


def _check_in_range(from_: int, last: int, dtype: np.dtype) -> None:
    """PyTorch's bounds check of [from, last] for `dtype`, and its precision warning."""
    if dtype.kind == "f":
        info = np.finfo(dtype)
        low, high = float(info.min), float(info.max)
    elif dtype == np.bool_:
        low, high = 0, 1
    else:
        low, high = int(np.iinfo(dtype).min), int(np.iinfo(dtype).max)
    for name, value in (("from", from_), ("to - 1", last)):
        if not low <= value <= high:
            raise RuntimeError(f"{name} is out of bounds for {c_type_name(dtype)}")
    if dtype.kind == "f":
        digits = np.finfo(dtype).nmant + 1
        for name, value in (("from", from_), ("to - 1", last)):
            if not -(2**digits) <= value <= 2**digits:
                warnings.warn(
                    f"{name} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision "
                    f"limitations {c_type_name(dtype)} can support discrete uniform "
                    "distribution only within this range. This warning will become an error "
                    "in version 1.7 release, please fix the code in advance",
                    UserWarning,
                    stacklevel=4,
                )
