"""The one formatter of figures (model/figures.py): precision, unit, statistic, window."""

from __future__ import annotations

from cockpit.model.figures import DASH, figure, number, share, three_figures
from cockpit.store.handoff.markdown import _num


def test_numbers_get_sensible_precision():
    assert number(4445.01) == "4,445"  # issue 39: "4445.01" with no unit
    assert number(100.4) == "100"
    assert number(48.25) == "48.25"
    assert number(48.5) == "48.5"
    assert number(0.125) == "0.125" and number(0.00298) == "0.00298"  # a tok/J never reads 0
    assert number(7) == "7" and number(7.0) == "7"
    assert number(-1234.5) == "-1,234"
    assert number(None) == DASH


def test_a_column_of_tok_per_joule_keeps_three_figures_and_its_trailing_zeros():
    """The Search table's out tok/J and the sweep's lines: `12.0` beside `11.3`, not `12` beside `11.27`."""
    assert [three_figures(v) for v in (12.0, 11.27, 9.123, 10.98, 0.00298, 1234.5)] == \
        ["12.0", "11.3", "9.12", "11.0", "0.00298", "1,234"]
    assert three_figures(None) == DASH and three_figures(0) == "0"


def test_figures_carry_their_unit_statistic_and_window():
    assert figure(4445.01, "tok/s") == "4,445 tok/s"
    assert figure(812.4, "W", stat="mean", window="main run") == "812 W mean over main run"
    assert figure(None, "W") == DASH
    assert share(0.7412) == "74%" and share(None) == DASH


def test_the_handoff_words_figures_with_the_same_formatter():
    for value in (4445.01, 48.25, 7.0, None, 0.5):
        assert _num(value) == number(value)


def test_a_narrow_cell_gets_a_compact_figure_on_one_scale():
    from cockpit.model.figures import compact

    assert compact(789) == "789" and compact(12.345) == "12.3"  # below 1000: a decimal at most
    assert compact(1234) == "1.2k" and compact(12_345) == "12k" and compact(3_400_000) == "3.4M"
    assert compact(789, like=1234) == "0.8k"  # beside a peak of 1.2k: one scale
    assert compact(12, like=4445.01) == "12"  # never "0.0k" for a figure that is not 0
    assert number(4.93, decimals=1) == "4.9" and number(10.0, decimals=0) == "10"
