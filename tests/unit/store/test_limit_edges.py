"""The store's bounds exactly at their value and one past it: a number of 1,000 digits is
read and one of 1,001 refused, 64 levels of nesting are left to the schema and the 65th
refused at its bracket, 50 problems are listed whole and the 51st becomes a count, a file of
exactly the size limit loads."""

from __future__ import annotations

from cockpit.store.errors import Problem
from cockpit.store.limits import MAX_NESTING, MAX_NUMBER_CHARS, MAX_PROBLEMS_LISTED, capped, size_problem, structure_problem


def test_a_number_of_exactly_the_bound_is_read_and_one_digit_more_refused() -> None:
    assert MAX_NUMBER_CHARS == 1000
    assert structure_problem("order = " + "7" * 1000 + "\n") is None
    problem = structure_problem("order = " + "7" * 1001 + "\n")
    assert problem == Problem(1, 9, "number longer than 1000 digits")


def test_nesting_of_exactly_the_bound_passes_and_one_level_more_is_refused_at_its_bracket() -> None:
    assert MAX_NESTING == 64
    assert structure_problem("a = " + "[" * 64 + "]" * 64 + "\n") is None
    problem = structure_problem("a = " + "[" * 65 + "]" * 65 + "\n")
    assert problem == Problem(1, 5 + 64, "nested deeper than 64 arrays or inline tables")


def _problems(n: int) -> list[Problem]:
    return [Problem(i + 1, 1, f"problem {i + 1}") for i in range(n)]


def test_fifty_problems_are_listed_whole_and_the_fifty_first_becomes_a_count() -> None:
    assert MAX_PROBLEMS_LISTED == 50
    assert capped(_problems(50)) == _problems(50)
    listed = capped(_problems(51))
    assert listed[:50] == _problems(50)
    assert listed[50] == Problem(51, 1, "... and 1 more problems (fix these and check again)")


def test_a_file_of_exactly_the_limit_loads_and_one_byte_more_is_refused() -> None:
    assert size_problem(1000, 1000) is None
    assert size_problem(1001, 1000) == Problem(1, 1, "file is 1,001 bytes, over the 1,000-byte limit "
                                                     "(set COCKPIT_MAX_SESSION_BYTES)")
    mb = 1024 * 1024
    assert size_problem(16 * mb, 16 * mb) is None
    assert size_problem(16 * mb + 1, 16 * mb).message.startswith("file is 16 MB, over the 16 MB limit")
