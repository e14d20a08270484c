"""A JSON encoder for the large JSON columns (probe reports, shard results), through orjson.

A full-release probe report is megabytes of numbers, and the standard ``json`` module is slow at
turning them into text; orjson is much faster. ``FastJSONEncoder`` is
what such a ``JSONField`` takes as ``encoder``: Django calls ``json.dumps(value, cls=encoder)``,
which asks the encoder for ``encode``, done here by orjson. What is stored parses to the values
the field's default encoder would have stored:

- numbers keep their shortest round-trip form; numpy scalars and arrays are numbers and lists;
- dictionary keys that are not strings (ints, floats, bools, None) become strings, as ``json`` makes them;
- dates, times, decimals, lazy strings and the rest go through ``DjangoJSONEncoder.default``;
- one difference: NaN and infinities are written as null. ``json`` writes them as ``NaN``, which is
  not JSON (PostgreSQL's jsonb refuses it, SQLite keeps it as text); the reports store a missing
  value as None already, and null is what any JSON reader can take.
"""

from __future__ import annotations

import orjson
from django.core.serializers.json import DjangoJSONEncoder

# Dates and dataclasses go to DjangoJSONEncoder.default as with json (orjson would write them its own way).
OPTIONS = (
    orjson.OPT_SERIALIZE_NUMPY
    | orjson.OPT_NON_STR_KEYS
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_DATACLASS
)


class FastJSONEncoder(DjangoJSONEncoder):
    """``DjangoJSONEncoder``'s values, written by orjson (see the module docstring)."""

    def encode(self, o) -> str:
        return orjson.dumps(o, default=self.default, option=OPTIONS).decode()
