"""Agreement in `queue status` is the statistic `evalkit stats` reports, on any data: alpha computed by the
database's grouping (services/queue/status.py) equals `alpha` (services/stats/agreement.py) over each
reviewer's final decisions, and SQLite and PostgreSQL give the same report to the last digit."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from evalkit.services.queue.status import NO_LABEL, queue_status
from evalkit.services.queue.store import QueueStore
from evalkit.services.stats.agreement import Alpha, alpha, alpha_of_units
from evalkit.services.stats.compute import _is_number
from tests.team_queue.conftest import init_queue

DECISIONS = st.dictionaries(
    st.tuples(st.integers(0, 5), st.integers(0, 12)),  # (reviewer, item)
    st.sampled_from([1.0, 2.0, 3.5, 4.0, 5.0]),
    max_size=40,
)


@pytest.mark.parametrize("level", ["interval", "nominal"])
@given(decided=DECISIONS)
def test_alpha_from_value_counts_is_alpha(level: Any, decided: dict[tuple[int, int], float]) -> None:
    by_reviewer: dict[int, dict[int, float]] = defaultdict(dict)
    units: dict[int, list[float]] = defaultdict(list)
    for (reviewer, item), value in decided.items():
        by_reviewer[reviewer][item] = value
        units[item].append(value)
    expected = alpha(level, list(by_reviewer.values()))
    found = alpha_of_units(level, units)
    assert (found.items, found.note) == (expected.items, expected.note)
    assert found.value == pytest.approx(expected.value)


# One reviewer's entries on one item, in the order written: (target, action, value, rules). Values a
# journal can hold: ratings that are no finite number (a string, true, null, NaN, an integer beyond a float)
# and labels that count as none ("", null); `clear` withdraws a decision. A target that differs from a
# rating's only by case (Rating.x) is no rating (SQLite's LIKE would take it).
ACTION = st.sampled_from(["edit", "accept", "discard", "clear"])
RULES = st.lists(st.sampled_from(["r1", "r2", "r3"]), unique=True, max_size=2)
RATING = st.one_of(
    st.sampled_from([1, 2.5, 4, 5, 1e300, -3.0]),
    st.sampled_from(["4", True, None, float("nan"), 10**400]),
)
ENTRY = st.one_of(
    st.tuples(st.just("label"), ACTION, st.sampled_from(["good", "bad", "", None]), RULES),
    st.tuples(st.sampled_from(["rating.accuracy", "rating.clarity", "Rating.x"]), ACTION, RATING, RULES),
    st.tuples(st.just("rewrite"), ACTION, st.just("text"), RULES),
)
WORK = st.dictionaries(
    st.tuples(st.integers(0, 4), st.integers(0, 6)),  # (reviewer, item)
    st.tuples(st.booleans(), st.lists(ENTRY, max_size=5)),  # (finished, entries)
    max_size=24,
)


@pytest.fixture
def stores(tmp_path: Path, pg_url: str) -> Iterator[list[QueueStore]]:
    sqlite_url = str(tmp_path / "team.db")
    for url in (sqlite_url, pg_url):
        init_queue(url, "--per-item", "3")
    opened = [QueueStore.open(sqlite_url), QueueStore.open(pg_url)]
    yield opened
    for store in opened:
        store.close()


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(work=WORK)
@example(work={(0, 0): (True, [("Rating.x", "edit", 1, [])]), (1, 0): (True, [("Rating.x", "edit", 4, [])])})
def test_queue_agreement_is_the_stats_alpha_on_both_databases(
    stores: list[QueueStore], work: dict[tuple[int, int], tuple[bool, list[Any]]]
) -> None:
    reports = []
    for store in stores:
        fill(store, work)
        status = queue_status(store)
        reports.append({**status.to_dict(), "queue": ""})
        expected_overall, expected_by_rule = expected_agreement(work)
        for found, expected in zip(status.agreement, expected_overall, strict=True):
            assert_same_alpha(found, expected)
        assert set(status.by_rule) == set(expected_by_rule)
        for rule, found in status.by_rule.items():
            assert_same_alpha(found, expected_by_rule[rule])
    assert reports[0] == reports[1]


def fill(store: QueueStore, work: dict[tuple[int, int], tuple[bool, list[Any]]]) -> None:
    """The queue holds just this work: items "0" to "6", each reviewer's slot (finished or not), their
    entries."""
    db = store.db
    with db.transaction():
        for table in ("decisions", "claims", "slots", "items"):
            db.execute(f"DELETE FROM {table}")
        db.executemany(
            "INSERT INTO items (digest, source, body) VALUES (?, ?, '{}')",
            [(f"{item:064x}", str(item)) for item in range(7)],
        )
        ids = {int(source): item_id for item_id, source in db.execute("SELECT id, source FROM items")}
        slots = [
            (ids[item], reviewer, f"r{reviewer}", 1.0 if done else None)
            for (reviewer, item), (done, _) in work.items()
        ]
        db.executemany(
            "INSERT INTO slots (item_id, slot, reviewer, claimed_at, done_at) VALUES (?, ?, ?, 0.0, ?)", slots
        )
        rows = [
            (
                f"{reviewer}-{item}-{n}",
                ids[item],
                f"r{reviewer}",
                target,
                action,
                json.dumps(value),
                ",".join(rules),
            )
            for (reviewer, item), (_, entries) in work.items()
            for n, (target, action, value, rules) in enumerate(entries)
        ]
        db.executemany(
            "INSERT INTO decisions (id, item_id, reviewer, role, ts, target, action, value, step, rules) "
            "VALUES (?, ?, ?, 'review', 't', ?, ?, ?, 1, ?)",
            rows,
        )


def expected_agreement(
    work: dict[tuple[int, int], tuple[bool, list[Any]]],
) -> tuple[list[Alpha], dict[str, Alpha]]:
    """What `evalkit stats` computes from each reviewer's final decisions (the last entry per target, not
    withdrawn) on the items they finished: one {unit: value} map per reviewer. Rules are reported that
    proposed on a unit two or more reviewers decided."""
    ratings: dict[int, dict[Any, Any]] = defaultdict(dict)
    labels: dict[int, dict[Any, Any]] = defaultdict(dict)
    by_rule: dict[str, dict[int, dict[Any, Any]]] = defaultdict(lambda: defaultdict(dict))
    decided: dict[tuple[int, str], list[list[str]]] = defaultdict(list)
    for (reviewer, item), (done, entries) in work.items():
        final = {target: (action, value, rules) for target, action, value, rules in entries}
        for target, (action, value, rules) in final.items() if done else ():
            if action == "clear":
                continue
            decided[(item, target)].append(rules)
            if target == "label":
                labels[reviewer][item] = value or NO_LABEL
            elif target.startswith("rating.") and _is_number(value):
                ratings[reviewer][(item, target)] = value
            for rule in rules:
                by_rule[rule][reviewer][(item, target)] = action
    shown = {rule for rules in decided.values() if len(rules) >= 2 for named in rules for rule in named}
    overall = [alpha("interval", list(ratings.values())), alpha("nominal", list(labels.values()))]
    return overall, {rule: alpha("nominal", list(by_rule[rule].values())) for rule in shown}


def assert_same_alpha(found: Alpha, expected: Alpha) -> None:
    assert (found.level, found.items, found.note) == (expected.level, expected.items, expected.note)
    assert found.value == pytest.approx(expected.value, rel=1e-9, abs=1e-9)
