"""core.json_columns: orjson writes what DjangoJSONEncoder would (parsed back equal), numpy values
included; NaN becomes null; what json cannot write is refused."""

import datetime
import decimal
import json
import uuid

import numpy as np
import pytest
from django.core.serializers.json import DjangoJSONEncoder
from django.utils.functional import lazy

from core.json_columns import FastJSONEncoder


def dumps(value, encoder=FastJSONEncoder) -> str:
    return json.dumps(value, cls=encoder)  # as Django's JSONField calls its encoder


def test_parses_to_what_the_default_encoder_writes():
    value = {
        "rho": 0.1 + 0.2,  # 0.30000000000000004: the shortest round-trip form survives
        "tiny": 5e-324,
        "big": 1.7976931348623157e308,
        "count": 2**62,
        "missing": None,
        "flags": [True, False],
        "text": "círculo vicioso — «ok»",
        "nested": {"rows": [{"a": 1, "b": [1.5, None]}], "tuple": (1, 2)},
        3: "int key",
        2.5: "float key",
        "when": datetime.datetime(2026, 11, 24, 20, 21, 5, 123456, tzinfo=datetime.UTC),
        "day": datetime.date(2026, 11, 24),
        "amount": decimal.Decimal("1.50"),
        "id": uuid.UUID(int=7),
        "lazy": lazy(lambda: "later", str)(),
    }
    assert json.loads(dumps(value)) == json.loads(dumps(value, DjangoJSONEncoder))
    assert json.loads(dumps(value))["when"] == "2026-11-24T20:21:05.123Z"  # Django's own date format


def test_numpy_values_are_numbers_and_lists():
    value = {"f64": np.float64(0.25), "f32": np.float32(0.5), "i": np.int64(3), "array": np.arange(3.0)}
    assert json.loads(dumps(value)) == {"f64": 0.25, "f32": 0.5, "i": 3, "array": [0.0, 1.0, 2.0]}


def test_nan_and_infinity_are_null():
    assert json.loads(dumps([float("nan"), float("inf"), -float("inf"), np.float64("nan")])) == [None] * 4


def test_what_json_cannot_write_is_refused():
    with pytest.raises(TypeError):
        dumps({"set": {1, 2}})
