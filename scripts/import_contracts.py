"""An import-linter contract whose modules come from the code: every module that says it is pure is checked.

A module claims to be pure in its docstring: "pure" opening the docstring, a sentence, a
parenthesis or a clause after a semicolon ("(pure: no Django)", "Pure: pandas, no Django",
"...; pure: no Django"). A claim in a package's ``__init__`` covers every module of the package.
``lint-imports`` then checks that none of them imports the forbidden modules, directly or through
another module, exactly as import-linter's ``forbidden`` contract does. A new pure module cannot be
forgotten in a list, and a docstring cannot call a module pure while it imports Django.

    [importlinter:contract:pure]
    type = pure_modules
    forbidden_modules = django
"""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

from grimp import ImportGraph
from importlinter.contracts.forbidden import ForbiddenContract
from importlinter.domain import fields
from importlinter.domain.contract import ContractCheck
from importlinter.domain.imports import ModuleExpression

CLAIM = re.compile(r"(?:\A|\(|[.;:]\s+)pure\b", re.IGNORECASE)


def claims_pure(source: str) -> bool:
    """Whether a module's text says, in its docstring, that the module is pure."""
    try:
        docstring = ast.get_docstring(ast.parse(source)) or ""
    except SyntaxError:
        return False
    return bool(CLAIM.search(docstring))


def module_file(name: str) -> Path | None:
    """The source file of a module, found from its root package's folder without importing anything else
    (importing a package's ``__init__`` may need Django set up)."""
    root, *parts = name.split(".")
    spec = importlib.util.find_spec(root)
    if spec is None or not spec.submodule_search_locations:
        return None
    base = Path(next(iter(spec.submodule_search_locations))).joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def pure_modules(names: set[str]) -> set[str]:
    """The modules among ``names`` that claim purity, or lie in a package whose ``__init__`` does."""
    claimed = set()
    for name in names:
        path = module_file(name)
        if path is not None and claims_pure(path.read_text(encoding="utf-8")):
            claimed.add(name)
    return {name for name in names if any(name == c or name.startswith(c + ".") for c in claimed)}


class PureModulesContract(ForbiddenContract):
    """``forbidden``, with the source modules found by their docstrings' claim of purity."""

    type_name = "pure_modules"
    source_modules = fields.SetField(subfield=fields.ModuleExpressionField(), required=False)

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        roots = set(self.session_options["root_packages"])
        internal = {name for name in graph.modules if name.split(".")[0] in roots}
        found = sorted(pure_modules(internal))
        self.source_modules = {ModuleExpression(name) for name in found}  # type: ignore[assignment]
        check = super().check(graph, verbose)
        check.metadata = {**(check.metadata or {}), "pure_modules": found}
        return check
