"""Querysets compiled once per process: a hot read binds new values into SQL that Django built once.

Django compiles a queryset's SQL anew each time it is evaluated. For the joins of the rating cycle
(the session's annotator with its campaign, the locked assignment with its item, the next free item
with its compound and sentence) that costs 0.25-0.7 ms of CPU per query, several times what
PostgreSQL spends running it, and every rating of a study pays it on each of them.

``Prepared(build)`` calls ``build(*markers)`` once, with marker values in place of the values that
vary, compiles the queryset, and finds each marker among the SQL's parameters. Each later call
swaps the values in, runs the SQL, and builds the instances as Django's own ``ModelIterable`` does
(``Model.from_db``, the database converters, ``select_related`` through Django's populators), so
the rows are the ones the queryset itself returns (tests/core/test_prepared.py compares them).
A queryset whose SQL depends on the values themselves (``__in`` lists, ``None``) cannot be
prepared: building it with markers that do not each land in one parameter raises at once.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django.db import connections
from django.db.models import Model, QuerySet
from django.db.models.query import get_related_populators

T = TypeVar("T", bound=Model)

# Marker values: integers inside every integer column's range (Django drops a lookup whose value
# overflows its column: the SQL would lose the parameter), strings no user can type, UUIDs of no
# version. A marker that equals a constant of the query is caught: each must be found exactly once.
INT_MARKER = 31_337
STR_MARKER = "\x1fprepared-marker-"


def _same(value: Any) -> Any:
    return value


def _hex(value: Any) -> Any:
    return value.hex if isinstance(value, uuid.UUID) else None


# How a value may stand among the compiled parameters: as itself, or (a UUID on a database without
# a UUID type, SQLite) as its hex string.
FORMS: tuple[Callable[[Any], Any], ...] = (_same, _hex)


@dataclass(frozen=True)
class Compiled:
    sql: str
    params: tuple
    slots: tuple[tuple[int, int, Callable[[Any], Any]], ...]  # (position among the parameters, value index, form)
    build_row: Callable[[tuple], Model]
    converters: dict


def marker(kind: type, index: int) -> Any:
    if kind is int:
        return INT_MARKER + index
    if kind is str:
        return f"{STR_MARKER}{index}"
    if kind is uuid.UUID:
        return uuid.UUID(int=(1 << 127) + index)  # not a version-4 UUID: never one that was handed out
    raise TypeError(f"no marker for {kind.__name__}: prepare int, str or UUID values only")


class Prepared(Generic[T]):
    """``build(*values)`` as SQL compiled once per process and database; ``fetch(*values)`` runs it.

    ``kinds`` gives the type of each value (int, str or uuid.UUID), from which the markers are made.
    """

    def __init__(self, build: Callable[..., QuerySet[T]], kinds: Sequence[type], using: str = "default"):
        self.build, self.kinds, self.using = build, tuple(kinds), using
        self._compiled: Compiled | None = None
        self._lock = threading.Lock()

    def compiled(self) -> Compiled:
        if self._compiled is None:
            with self._lock:
                if self._compiled is None:
                    self._compiled = self._compile()
        return self._compiled

    def _compile(self) -> Compiled:
        markers = [marker(kind, i) for i, kind in enumerate(self.kinds)]
        queryset = self.build(*markers)
        compiler = queryset.query.get_compiler(self.using)
        sql, params = compiler.as_sql()
        slots = []
        for index, value in enumerate(markers):
            # The database's form of the value: a UUID is a UUID on PostgreSQL, its hex on SQLite.
            forms = [(form, form(value)) for form in FORMS if form(value) is not None]
            found = [(pos, form) for pos, param in enumerate(params) for form, shown in forms if param == shown]
            if len(found) != 1:
                raise ValueError(f"value {index} appears {len(found)} times in the SQL's parameters, not once")
            slots.append((found[0][0], index, found[0][1]))
        select, klass_info = compiler.select, compiler.klass_info
        if klass_info is None or compiler.annotation_col_map:
            raise ValueError("only querysets of model instances (no values(), no annotations) can be prepared")
        db = self.using
        model_cls = klass_info["model"]
        fields = klass_info["select_fields"]
        start, end = fields[0], fields[-1] + 1
        init_list = [column[0].target.attname for column in select[start:end]]
        populators = get_related_populators(klass_info, select, db)

        def build_row(row: tuple) -> Model:
            obj = model_cls.from_db(db, init_list, row[start:end])
            for populator in populators:
                populator.populate(row, obj)
            return obj

        converters = compiler.get_converters([column[0] for column in select])
        return Compiled(sql, tuple(params), tuple(slots), build_row, converters)

    def fetch(self, *values: Any) -> list[T]:
        """The instances the queryset ``build(*values)`` returns, without compiling it again."""
        compiled = self.compiled()
        params = list(compiled.params)
        for position, index, form in compiled.slots:
            params[position] = form(values[index])
        connection = connections[self.using]
        with connection.cursor() as cursor:
            cursor.execute(compiled.sql, params)
            rows = cursor.fetchall()
        if compiled.converters:
            rows = [
                tuple(
                    _convert(value, compiled.converters.get(i), connection) if i in compiled.converters else value
                    for i, value in enumerate(row)
                )
                for row in rows
            ]
        return [compiled.build_row(row) for row in rows]

    def first(self, *values: Any) -> T | None:
        found = self.fetch(*values)
        return found[0] if found else None


def _convert(value: Any, converter: tuple | None, connection) -> Any:
    functions, expression = converter
    for function in functions:
        value = function(value, expression, connection)
    return value
