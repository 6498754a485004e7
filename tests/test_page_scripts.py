"""Page scripts draw only what they mean to: Streamlit's "magic" draws any bare expression."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SCRIPTS = [REPO / "app.py", *sorted((REPO / "ui" / "pages").glob("*.py"))]


def _bare_strings(tree: ast.Module) -> list[int]:
    """Lines of string statements that are not the docstring of a module, class or function."""
    docstrings: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0]))
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
        and id(node) not in docstrings
    ]


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_no_page_script_has_a_bare_string_that_magic_would_draw(script: Path) -> None:
    assert _bare_strings(ast.parse(script.read_text())) == []


def test_magic_is_off_in_the_dashboard_settings() -> None:
    settings = tomllib.loads((REPO / ".streamlit" / "config.toml").read_text())
    assert settings["runner"]["magicEnabled"] is False
