"""Moving a write-path scenario in time by whole weeks (``eval_writepath --rebase``).

The scenarios carry fixed 2026 timestamps, but ranking ages memories by the server's
clock, so a fair run moves each scenario until its last message falls in the week
before the run. Whole weeks keep every weekday right ("on Friday" stays a Friday).

Every *full* date moves: ISO dates (``2026-03-13``, also inside a timestamp) and written
month-day dates (``March 13``, ``13 March``, ``Mar 13th``, ``13th of March``, with or
without a year). A bare month ("in September") or a year-month (``2026-04``) is not a
full date and stays. A written date without a year is read as the one nearest the
message's own time (a check: the scenario's last message). The text is rewritten in the
form it had (full or short month name, day first or month first, an ordinal suffix, now
the right one for the new day). These are regular expressions on purpose: the forms are
the ones the scenario files use, and the transform belongs to the test harness, not to
the product (whose date reading goes through a date library).
"""

from __future__ import annotations

import calendar
import copy
import math
import re
from datetime import date, datetime, timedelta

MONTHS = {name: i for i, name in enumerate(calendar.month_name) if name}
SHORT = {name: i for i, name in enumerate(calendar.month_abbr) if name}
SHORT["Sept"] = 9
_MONTH = "|".join(sorted([*MONTHS, *SHORT], key=len, reverse=True))

_ISO = re.compile(r"(?<![\d-])(\d{4})-(\d{2})-(\d{2})(?![\d])")
# Month names are matched capitalised only, so the verb "may" is never a date.
_MONTH_DAY = re.compile(
    rf"\b(?P<month>{_MONTH})(?P<dot>\.)? (?P<day>\d{{1,2}})(?P<suffix>st|nd|rd|th)?\b"
    r"(?P<year>,? \d{4}\b)?"
)
_DAY_MONTH = re.compile(
    rf"\b(?P<day>\d{{1,2}})(?P<suffix>st|nd|rd|th)?(?P<of> of)? (?P<month>{_MONTH})\b"
    r"(?P<year>,? \d{4}\b)?"
)


def ordinal(day: int) -> str:
    if 11 <= day % 100 <= 13:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")


def rebase_weeks(*, last: datetime, now: datetime) -> int:
    """Whole weeks to add so that ``last`` falls in the seven days before ``now``."""
    return math.ceil((now - last) / timedelta(weeks=1)) - 1


def _nearest(month: int, day: int, *, reference: date) -> date | None:
    """The date ``month``/``day`` nearest ``reference`` (a year either side)."""
    candidates = []
    for year in (reference.year - 1, reference.year, reference.year + 1):
        try:
            candidates.append(date(year, month, day))
        except ValueError:  # 30 February, 31 April
            continue
    return min(candidates, key=lambda d: abs(d - reference), default=None)


def shift_text(text: str, *, weeks: int, reference: date) -> str:
    """``text`` with every full date in it moved by ``weeks``."""
    if not weeks or not text:
        return text
    delta = timedelta(weeks=weeks)

    def iso(match: re.Match) -> str:
        try:
            day = date(int(match[1]), int(match[2]), int(match[3]))
        except ValueError:
            return match[0]
        return (day + delta).isoformat()

    def written(match: re.Match) -> str:
        name, day = match["month"], int(match["day"])
        month = MONTHS.get(name) or SHORT[name]
        if match["year"]:
            try:
                old: date | None = date(int(match["year"].strip(", ")), month, day)
            except ValueError:
                old = None
        else:
            old = _nearest(month, day, reference=reference)
        if old is None:
            return match[0]
        new = old + delta
        if name in MONTHS:
            name = calendar.month_name[new.month]
        elif name != "Sept" or new.month != 9:
            name = calendar.month_abbr[new.month]
        suffix = ordinal(new.day) if match["suffix"] else ""
        year = re.sub(r"\d{4}", str(new.year), match["year"] or "")
        if match.re is _MONTH_DAY:
            return f"{name}{match['dot'] or ''} {new.day}{suffix}{year}"
        return f"{new.day}{suffix}{match['of'] or ''} {name}{year}"

    text = _ISO.sub(iso, text)
    # Each written date is rewritten once: day-first forms are marked while the
    # month-first pass runs, so "13 March 2026" is not read again as "March 2026".
    out, last = [], 0
    for match in _DAY_MONTH.finditer(text):
        out += [_MONTH_DAY.sub(written, text[last : match.start()]), written(match)]
        last = match.end()
    out.append(_MONTH_DAY.sub(written, text[last:]))
    return "".join(out)


def _shift_item(item, *, weeks: int, reference: date):
    if isinstance(item, list):
        return [_shift_item(i, weeks=weeks, reference=reference) for i in item]
    return shift_text(item, weeks=weeks, reference=reference)


def _timestamp(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def rebase_scenario(scenario: dict, *, now: datetime) -> tuple[dict, int]:
    """A copy of ``scenario`` moved so its last message falls in the week before
    ``now``, and the weeks it moved; unchanged (0) for ``no_rebase`` or no timestamps."""
    messages = [m for s in scenario["sessions"] for m in s["messages"]]
    stamps = [_timestamp(m["timestamp"]) for m in messages if m.get("timestamp")]
    if scenario.get("no_rebase") or not stamps:
        return scenario, 0
    weeks = rebase_weeks(last=max(stamps), now=now)
    if not weeks:
        return scenario, 0
    moved = copy.deepcopy(scenario)
    last_day = max(stamps).date()
    for session in moved["sessions"]:
        for message in session["messages"]:
            stamp = message.get("timestamp")
            reference = _timestamp(stamp).date() if stamp else last_day
            message["content"] = shift_text(message["content"], weeks=weeks, reference=reference)
            if stamp:
                message["timestamp"] = shift_text(stamp, weeks=weeks, reference=reference)
    for check in moved.get("checks", []):
        check["query"] = shift_text(check["query"], weeks=weeks, reference=last_day)
        for key in ("expect", "forbid"):
            check[key] = _shift_item(check.get(key, []), weeks=weeks, reference=last_day)
    return moved, weeks
