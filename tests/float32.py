"""Comparing float32 results of two different computations of the same vectors.

A model's float32 output depends on more than its input: the batch it was embedded in (padding
changes the shapes the matrix kernels see), the number of threads BLAS splits a product into, and
the engine (sentence-transformers' pipeline, our forward, TensorFlow's reference ELMo) all change
the order in which sums are accumulated. float32 keeps 24 bits (a relative step of 6e-8); a
six-layer transformer's hundreds of accumulations per element, repeated through every layer,
leave differences of about 1e-6 on unit-sized values (seen: 1.19e-6 between a batch of one and a
batch of two on MiniLM, on a loaded machine). A tolerance of 1e-5, relative and absolute, is ten
times that and still a thousand times smaller than any real mistake these tests look for (a span
shifted by one token, another layer, another text: differences of 1e-2 and more; tested in
tests/test_float32.py).

Use these where the two sides went through different batch compositions, shards, resumed runs,
processes, thread counts or engines. A comparison of the *same* computation (one pass read two
ways, a mean of layers from one forward) stays exact or at 1e-6.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

FLOAT32_RTOL = 1e-5
FLOAT32_ATOL = 1e-5


def assert_vectors_close(actual: Any, expected: Any, err_msg: str = "") -> None:
    """Fail unless the two arrays agree within what float32 allows between two computations."""
    np.testing.assert_allclose(
        np.asarray(actual, dtype=np.float64),
        np.asarray(expected, dtype=np.float64),
        rtol=FLOAT32_RTOL,
        atol=FLOAT32_ATOL,
        err_msg=err_msg,
    )


def float32_close(value: float | None) -> Any:
    """A pytest.approx for a measure (a cosine, a mean, a rho) computed from such vectors.

    A measure that could not be computed (None: too few items) must be None on both sides.
    """
    if value is None:
        return None
    return pytest.approx(value, rel=FLOAT32_RTOL, abs=FLOAT32_ATOL)


def assert_same_numbers(actual: dict[str, float], expected: dict[str, float]) -> None:
    """Fail unless two runs' figures (a report's ``numbers``, by name) have the same names and agree within
    what float32 allows between two computations."""
    assert actual.keys() == expected.keys()
    for key, value in expected.items():
        assert actual[key] == float32_close(value), key
