"""Shared test setup: hypothesis profiles, chosen with the HYPOTHESIS_PROFILE env var."""

from __future__ import annotations

import os

# One BLAS thread: on a shared 2-core machine, threaded BLAS makes small linalg
# calls far slower. Set before NumPy is imported by any test module.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import settings

import chainrule

# ci: quick, for every push; dev (default): local runs; thorough: on demand.
# ci is derandomized: the same examples every run, so a green run stays green; dev and
# thorough draw new examples each time (and keep failures in .hypothesis/ to replay).
settings.register_profile("ci", max_examples=25, deadline=None, derandomize=True)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.register_profile("thorough", max_examples=1000, deadline=None)
# CI machines set CI=true; they get the quick profile unless one is named.
_default = "ci" if os.environ.get("CI", "").lower() in ("1", "true", "yes") else "dev"
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", _default))


@pytest.fixture(scope="module")
def torch() -> Any:
    """Real PyTorch, the oracle; tests that take this fixture skip where it is missing."""
    return pytest.importorskip("torch")


@pytest.fixture(params=["chainrule", "torch"])
def lib(request: pytest.FixtureRequest) -> Iterator[Any]:
    """The library a documentation example runs under: chainrule, then PyTorch where it is
    installed (so the recorded output is checked against both). Seeded; grad mode restored."""
    module = chainrule if request.param == "chainrule" else request.getfixturevalue("torch")
    module.manual_seed(0)
    yield module
    module.set_grad_enabled(True)
