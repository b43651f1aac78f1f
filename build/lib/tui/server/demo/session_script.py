"""The demo's long session: an agent adding currency conversion to the payments service.

Why: a newcomer should find a run going whenever they look, and one that reads like real
work — reading files, running commands and tests, editing, a failing test, a lint error, a
wrong command, each fixed in turn — at a person's pace (a step every few seconds, test
runs taking longer), a few minutes in all. The demo plays it again and again, each lap in a
fresh conversation (``tui.server.live.autoplay.play_loop``), so its cost stays that of one
run. Each lap starts from the same files (:data:`LAP_FILES`, written into the demo's
workspace when a lap starts): what the agent reads is what Files shows, and its edits are
real there.
"""

from __future__ import annotations

from .events_builder import WORKDIR
from .live_builder import LiveBuilder
from .script_steps import (
    WRAP_UP,
    Script,
    completion_log,
    edit_file,
    finish,
    plan,
    terminal,
    think,
    view_file,
)

TITLE = "Live: add currency conversion to payments (long session)"
REQUEST = (
    "Refunds can be in USD or GBP now. Implement `convert()` in src/payments/currency.py "
    "(exact to the cent, no floats), raise a clear error for an unknown currency, cover it "
    "with tests, and run the whole suite and the linters before you finish."
)
REPOSITORY = "acme/payments"

CURRENCY = f"{WORKDIR}/src/payments/currency.py"
TESTS = f"{WORKDIR}/tests/test_currency.py"

_STUB = '''"""Currency conversion for the payments service."""

RATES = {"EUR": 1.0, "USD": 1.08, "GBP": 0.86}  # per euro


def convert(amount, source, target):
    raise NotImplementedError
'''
_IMPLEMENTED = '''"""Currency conversion for the payments service."""

from decimal import ROUND_HALF_EVEN, Decimal
import math

RATES = {"EUR": Decimal("1.0"), "USD": Decimal("1.08"), "GBP": Decimal("0.86")}  # per euro
CENT = Decimal("0.01")


def convert(amount: Decimal | str, source: str, target: str) -> Decimal:
    """``amount`` in ``source`` as ``target``, rounded half-even to the cent."""
    euros = Decimal(amount) / RATES[source]
    return (euros * RATES[target]).quantize(CENT, rounding=ROUND_HALF_EVEN)
'''
_TEST_STUB = """from payments.currency import convert


def test_same_currency():
    assert convert(10, "EUR", "EUR") == 10
"""
_TESTS_ADDED = """from decimal import Decimal

import pytest

from payments.currency import convert


def test_same_currency():
    assert convert("10", "EUR", "EUR") == Decimal("10.00")


def test_usd_to_eur_is_exact_to_the_cent():
    assert convert("19.99", "USD", "EUR") == Decimal("18.51")


def test_round_trip_loses_at_most_a_cent():
    there = convert("250.00", "EUR", "GBP")
    assert abs(convert(there, "GBP", "EUR") - Decimal("250.00")) <= Decimal("0.01")


def test_unknown_currency_is_refused():
    with pytest.raises(ValueError, match="unknown currency: JPY"):
        convert("1", "JPY", "EUR")
"""

#: The files a lap starts from (virtual path → text): put back when a lap starts.
LAP_FILES = {CURRENCY: _STUB, TESTS: _TEST_STUB}


def session_script(b: LiveBuilder, n: int) -> Script:
    """One lap of the session (``paced``: paces the tool runs, then the model thinks)."""
    tasks = ["Read the code", "Implement convert()", "Tests", "Suite and linters"]
    b.paced(1, 5)
    yield from plan(
        b,
        [(task, "in_progress" if i == 0 else "todo") for i, task in enumerate(tasks)],
        thought="Four parts: read, implement, test, check everything.",
    )
    b.paced(1, 4)
    yield from terminal(
        b,
        "git status --short && git log --oneline -3",
        "?? src/payments/currency.py\n?? tests/test_currency.py\n"
        "4c1e2a7 Refunds: round to cents\n9b0d3f1 Initial commit",
        summary="Where the branch stands",
    )
    b.paced(1, 6)
    yield from view_file(b, CURRENCY, _STUB)
    b.paced(1, 4)
    yield from view_file(b, TESTS, _TEST_STUB)
    b.paced(2, 6)
    yield from terminal(
        b,
        "grep -rn 'amount' src/payments | head",
        "src/payments/refunds.py:4:def refund(amount, fee):\n"
        "src/payments/refunds.py:6:    return round(amount - fee, 2)",
        summary="Who passes amounts around",
    )
    b.paced(1, 8)
    yield from think(
        b,
        "Amounts are floats in refunds.py; 19.99 / 1.08 in floats is 18.509259..., fine, but "
        "0.1 + 0.2 style errors would show up in sums. Use Decimal from strings and quantize "
        "half-even to the cent, as accountants round.",
    )
    b.paced(1, 9)
    yield from edit_file(
        b,
        CURRENCY,
        _STUB,
        _STUB.split("\n\n", 1)[1],
        _IMPLEMENTED.split("\n\n", 1)[1],
        summary="Implement convert() with Decimal",
    )
    b.paced(7, 5)
    yield from terminal(
        b,
        "pytest -q tests/test_currency.py",
        ".                                                                        [100%]\n"
        "1 passed in 0.31s",
        summary="Run the currency tests",
        hook=True,
    )
    b.paced(1, 10)
    yield from edit_file(b, TESTS, _TEST_STUB, _TEST_STUB, _TESTS_ADDED, summary="Add tests")
    b.paced(8, 7)
    yield from terminal(
        b,
        "pytest -q tests/test_currency.py",
        "...F                                                                     [100%]\n"
        "=================================== FAILURES ===================================\n"
        "________________________ test_unknown_currency_is_refused ______________________\n"
        "    def convert(amount: Decimal | str, source: str, target: str) -> Decimal:\n"
        '        """``amount`` in ``source`` as ``target``, rounded half-even to the cent."""\n'
        ">       euros = Decimal(amount) / RATES[source]\n"
        "E       KeyError: 'JPY'\n\n"
        "src/payments/currency.py:12: KeyError\n"
        "FAILED tests/test_currency.py::test_unknown_currency_is_refused - KeyError: 'JPY'\n"
        "1 failed, 3 passed in 0.38s",
        1,
        summary="Run the currency tests",
        hook=True,
    )
    completion_log(b)
    step = _IMPLEMENTED
    checked = step.replace(
        "    euros = Decimal(amount) / RATES[source]\n",
        "    for code in (source, target):\n"
        "        if code not in RATES:\n"
        '            raise ValueError(f"unknown currency: {code}")\n'
        "    euros = Decimal(amount) / RATES[source]\n",
    )
    b.paced(1, 8)
    yield from edit_file(
        b,
        CURRENCY,
        step,
        "    euros = Decimal(amount) / RATES[source]\n",
        checked[checked.index("    for code") : checked.index("    return")],
        summary="Refuse unknown currencies",
        thought="A KeyError says nothing to the caller; name the currency.",
    )
    step = checked
    b.paced(7, 5)
    yield from terminal(
        b,
        "pytest -q tests/test_currency.py",
        "....                                                                     [100%]\n"
        "4 passed in 0.29s",
        summary="Run the currency tests",
        hook=True,
    )
    b.paced(3, 6)
    yield from terminal(
        b,
        "ruff check src tests",
        "src/payments/currency.py:4:8: F401 [*] `math` imported but unused\n"
        "Found 1 error.\n[*] 1 fixable with the `--fix` option.",
        1,
        summary="Lint",
    )
    b.paced(1, 5)
    yield from edit_file(b, CURRENCY, step, "import math\n", "", summary="Drop the unused import")
    step = step.replace("import math\n", "", 1)
    b.paced(3, 5)
    yield from terminal(b, "ruff check src tests", "All checks passed!", summary="Lint again")
    b.paced(5, 7)
    yield from terminal(
        b,
        "mypy src",
        "src/payments/refunds.py:4: error: Function is missing a type annotation  "
        "[no-untyped-def]\nFound 1 error in 1 file (checked 3 source files)",
        1,
        summary="Type-check",
    )
    b.paced(1, 9)
    yield from think(
        b,
        "The refunds.py error is older than this change: out of scope. But refunds.py "
        "passes floats, and Decimal(2.675) is 2.67499999..., which loses a cent. "
        "Going through str(amount) keeps a float exactly as it was typed.",
    )
    for before, after, summary in (
        ("amount: Decimal | str,", "amount: Decimal | str | float,", "Accept floats"),
        ("Decimal(amount) /", "Decimal(str(amount)) /", "Read a float as typed"),
    ):
        b.paced(1, 5)
        yield from edit_file(b, CURRENCY, step, before, after, summary=summary)
        step = step.replace(before, after, 1)
    b.paced(5, 5)
    yield from terminal(
        b,
        "mypy src/payments/currency.py",
        "Success: no issues found in 1 source file",
        summary="Type-check the new module",
    )
    floats = _TESTS_ADDED.replace(
        "\n\ndef test_round_trip",
        "\n\ndef test_a_float_is_read_as_typed():\n"
        '    assert convert(2.675, "EUR", "EUR") == Decimal("2.68")  # not 2.67499…\n'
        "\n\ndef test_round_trip",
    )
    b.paced(1, 8)
    yield from edit_file(
        b,
        TESTS,
        _TESTS_ADDED,
        "\n\ndef test_round_trip",
        floats[floats.index("\n\ndef test_a_float") : floats.index("def test_round_trip")]
        + "def test_round_trip",
        summary="Test a float amount",
    )
    b.paced(7, 6)
    yield from terminal(
        b,
        "pytest -q tests/test_currency.py",
        ".....                                                                    [100%]\n"
        "5 passed in 0.30s",
        summary="Run the currency tests",
        hook=True,
    )
    b.paced(2, 6)
    yield from terminal(
        b,
        'python -c \'from payments.currency import convert; print(convert(19.99, "USD", "EUR"))\'',
        'Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n'
        "ModuleNotFoundError: No module named 'payments'",
        1,
        summary="Try it by hand",
    )
    b.paced(2, 5)
    yield from terminal(
        b,
        "PYTHONPATH=src python -c 'from payments.currency import convert; "
        'print(convert(19.99, "USD", "EUR"))\'',
        "18.51",
        summary="Try it by hand (from src)",
    )
    b.paced(1, 4)
    yield from plan(
        b,
        [(task, "done" if i < 3 else "in_progress") for i, task in enumerate(tasks)],
    )
    b.paced(12, 6)
    yield from terminal(
        b,
        "pytest -q",
        "........................................................                 [100%]\n"
        "57 passed in 3.41s",
        summary="Run the whole suite",
        hook=True,
    )
    completion_log(b)
    b.paced(1, 6)
    yield from terminal(
        b,
        "git status --short",
        "?? src/payments/currency.py\n?? tests/test_currency.py",
        summary="What is left to commit",
    )
    b.wait = 8
    yield WRAP_UP
    yield from finish(
        b,
        "convert() now works in Decimal from the amount as typed and rounds half-even to "
        "the cent (19.99 USD → 18.51 EUR); an unknown currency raises "
        "`ValueError: unknown currency: JPY`. Five tests cover it; the suite (57) passes, "
        "ruff is clean, and mypy is clean for the new module (refunds.py has an older "
        "untyped function, left as it was).",
    )
