"""Dates a query names, for matching against memories' dates (``retrieve.sql``).

``query_date_span("What did John organize on May 8, 2022?")`` is the day 2022-05-08;
``"... in July 2022"`` the month, ``"... in 2021"`` the year (after in, during, of,
since, by or before, so that a bare number like a model year "2077" is not read as one).
Absolute dates only, in English: day month year ("8 May, 2022", "8th of May 2022"),
month day year ("May 8, 2022", "May 8th 2022"), month year, year. The first one found
counts. Relative ones ("last week") are left alone: they need the date the question
was asked, which the service does not know.
"""

from __future__ import annotations

import calendar
import re
from datetime import UTC, datetime, timedelta

_MONTHS = [m.lower() for m in calendar.month_name[1:]]
_MONTH_NUMBER = {name[:3]: number for number, name in enumerate(_MONTHS, 1)}
_MONTH = r"(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"  # noqa: E501
_YEAR = r"((?:19|20)\d\d)"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_DAY_MONTH_YEAR = re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b")
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b")
_MONTH_YEAR = re.compile(rf"\b{_MONTH},?\s+(?:of\s+)?{_YEAR}\b")
_YEAR_ONLY = re.compile(rf"\b(?:in|during|of|since|by|before)\s+{_YEAR}\b")


def _day(year: int, month: int, day: int) -> tuple[datetime, datetime] | None:
    try:
        start = datetime(year, month, day, tzinfo=UTC)
    except ValueError:
        return None
    return start, start + timedelta(days=1)


def query_date_span(text: str) -> tuple[datetime, datetime] | None:
    """The [start, end) the first absolute date in ``text`` covers (UTC), or None."""
    lowered = text.lower()
    if match := _DAY_MONTH_YEAR.search(lowered):
        day, month, year = match.groups()
        return _day(int(year), _MONTH_NUMBER[month[:3]], int(day))
    if match := _MONTH_DAY_YEAR.search(lowered):
        month, day, year = match.groups()
        return _day(int(year), _MONTH_NUMBER[month[:3]], int(day))
    if match := _MONTH_YEAR.search(lowered):
        month, year = match.groups()
        number, year_ = _MONTH_NUMBER[month[:3]], int(year)
        start = datetime(year_, number, 1, tzinfo=UTC)
        end = datetime(year_ + (number == 12), number % 12 + 1, 1, tzinfo=UTC)
        return start, end
    if match := _YEAR_ONLY.search(lowered):
        year = int(match.group(1))
        return datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC)
    return None
