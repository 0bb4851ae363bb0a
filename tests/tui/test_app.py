"""The reviewer app driven through Pilot: every binding and flow, with the journal checked on disk."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual.app import App as TextualApp
from textual.command import CommandList
from textual.widget import Widget
from textual.widgets import Input, Static, TextArea

from evalkit.tui.commands import palette_commands
from evalkit.tui.footer import KeyFooter
from evalkit.tui.journal import Journal
from evalkit.tui.proposals_table import ProposalsTable
from evalkit.tui.screens import HelpScreen, InputScreen, TextScreen
from evalkit.tui.text_view import TextView

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "sample_submission.json"
SIZE = (80, 24)
"""The terminal of the tests that do not test a size: a small one, which costs less to draw each time."""
WIDE = (120, 40)
"""Wide enough that the proposals table cuts a long ranking to 10 cells, which the strip under it then
shows in full."""

App = Any
Settle = Callable[..., Any]
Until = Callable[..., Any]


def entries(app: App) -> list[dict[str, Any]]:
    return Journal(app.journal.path).read().entries


def shown_text(app: App, selector: str) -> str:
    """The text a Static or a TextView shows."""
    widget = app.screen.query_one(selector)
    if isinstance(widget, TextView):
        return widget.text.plain
    content = widget.content if isinstance(widget, Static) else None
    return content.plain if isinstance(content, Text) else str(content)


def highlighted(commands: CommandList) -> str:
    """The name of the command the palette's list highlights ("" before its search has shown one)."""
    option = commands.highlighted_option
    return "" if option is None else str(getattr(option.prompt, "plain", option.prompt)).split("\n")[0]


def decisions_column(app: App) -> list[str]:
    table = app.query_one(ProposalsTable)
    return [str(table.get_row_at(row)[3]) for row in range(table.row_count)]


async def test_opens_on_the_first_submission_with_its_proposals_and_help_opens_and_closes(
    make_app: Callable[..., App], settle: Settle
) -> None:
    app = make_app([SAMPLE])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.current == 0
        assert "samples/sample_submission.json" in shown_text(app, "#detail-header")
        table = app.query_one(ProposalsTable)
        assert [p.target for p in table.proposals][:2] == ["rating.accuracy", "rating.freshness"]
        assert "corrected: resp_b > resp_a" in shown_text(app, "#overview-text")
        assert "accuracy" in shown_text(app, "#overview-text")
        assert "0/1 reviewed" in app.status_text().plain
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        help_text = app.screen.help_text.plain
        assert "accept the proposal under the cursor" in help_text and str(app.journal.path) in help_text
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)
        assert not app.journal.path.exists()  # nothing decided, nothing written


async def test_accept_discard_and_the_cursor_moving_on(make_app: Callable[..., App], settle: Settle) -> None:
    app = make_app([SAMPLE])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a")
        assert app.query_one(ProposalsTable).cursor_row == 1  # the next undecided proposal
        await pilot.press("d")
        assert decisions_column(app)[:3] == ["accept", "discard 1", "pending"]
        assert [(e["target"], e["action"], e["value"]) for e in entries(app)] == [
            ("rating.accuracy", "accept", 4.5),
            ("rating.freshness", "discard", 1.0),
        ]


async def test_escape_leaves_an_editor_without_a_decision_then_a_rating_is_edited(
    make_app: Callable[..., App], settle: Settle
) -> None:
    app = make_app([SAMPLE])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("l")
        await pilot.pause()
        assert isinstance(app.screen, InputScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, InputScreen) and entries(app) == []
        # then a wrong value, refused in the editor, and a right one
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, InputScreen)
        editor = app.screen.query_one(Input)
        assert editor.value == "4.5"
        editor.value = "9"
        await pilot.press("enter")
        assert isinstance(app.screen, InputScreen)
        assert "outside the scale [0, 5]" in shown_text(app, "#edit-error")
        editor.value = "4"
        await pilot.press("enter")
        await pilot.pause()
        assert not isinstance(app.screen, InputScreen)
        assert entries(app)[-1] | {"ts": ""} == {
            "ts": "",
            "source": str(SAMPLE),
            "target": "rating.accuracy",
            "action": "edit",
            "value": 4.0,
            "note": None,
            "step": 1,
            "prev": None,  # the journal's first line: the hash chain starts here
        }


async def test_edit_the_rewrite_in_the_text_editor(make_app: Callable[..., App], settle: Settle) -> None:
    app = make_app([SAMPLE])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("down", "down")  # the queue has focus; move to the rewrite row via the table
        app.query_one(ProposalsTable).move_cursor(row=2)
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, TextScreen)
        app.screen.query_one(TextArea).text = "Dijkstra [/INST] con un ejemplo."
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert entries(app)[-1]["target"] == "rewrite"
        assert entries(app)[-1]["value"] == "Dijkstra [/INST] con un ejemplo."


async def test_final_label_and_note(make_app: Callable[..., App], settle: Settle) -> None:
    app = make_app([SAMPLE])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("l")
        await pilot.pause()
        app.screen.query_one(Input).value = "needs_review"
        await pilot.press("enter")
        await pilot.press("n")
        await pilot.pause()
        app.screen.query_one(TextArea).text = "ranking fine; [bold] rewrite needs an example"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert [(e["target"], e["action"], e["value"], e["note"]) for e in entries(app)] == [
            ("label", "edit", "needs_review", None),
            ("note", "note", None, "ranking fine; [bold] rewrite needs an example"),
        ]
        header = shown_text(app, "#detail-header")
        assert "label good → needs_review" in header and "[bold] rewrite" in header


async def test_undo_and_redo(make_app: Callable[..., App], settle: Settle) -> None:
    app = make_app([SAMPLE])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a", "u")
        assert decisions_column(app)[0] == "pending"
        await pilot.press("U")
        assert decisions_column(app)[0] == "accept"
        await pilot.press("u", "ctrl+r")
        assert decisions_column(app)[0] == "accept"
        assert [e.get("undoes") or e.get("redoes") for e in entries(app)] == [None, 1, 1, 1, 1]


async def test_accept_all_then_reopen_with_done(make_app: Callable[..., App], settle: Settle) -> None:
    app = make_app([SAMPLE])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("A")
        assert app.session.status(0) == "done"
        assert "1/1 reviewed" in app.status_text().plain
        await pilot.press("c")
        assert app.session.status(0) == "progress"
        await pilot.press("c")
        assert app.session.status(0) == "done"


async def test_moving_through_the_queue(
    make_app: Callable[..., App], settle: Settle, mixed_batch: Path
) -> None:
    app = make_app([mixed_batch])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        total = len(app.session.view)
        assert total > 1 and shown_text(app, "#detail-header").startswith(
            f"1/{total} "
        )  # read after the first
        await pilot.press("j")
        assert shown_text(app, "#detail-header").startswith(f"2/{total} ")
        assert app.current == 1
        await pilot.press("j")
        assert app.current == 2 and "invalid JSON" in shown_text(app, "#overview-text")
        await pilot.press("k", "k")
        assert app.current == 0
        await pilot.press("A")  # 0 done: ] skips it and the broken one
        await pilot.press("end")
        assert app.current == 3
        await pilot.press("left_square_bracket")
        assert app.current == 1
        await pilot.click("#queue", offset=(5, 3))
        assert app.current == 3


async def test_a_broken_submission_shows_its_error_and_refuses_decisions(
    make_app: Callable[..., App], settle: Settle, mixed_batch: Path
) -> None:
    app = make_app([mixed_batch])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.queue.select_index(2)
        await pilot.pause()
        await pilot.press("a", "c", "e", "l", "n")
        await pilot.pause()
        assert app.screen is app.screen_stack[0]  # no editor opened
        assert entries(app) == []
        assert "1 error(s)" in app.status_text().plain


async def test_filter_by_flag_then_leave_it(
    make_app: Callable[..., App], settle: Settle, until: Until, mixed_batch: Path
) -> None:
    app = make_app([mixed_batch])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        assert app.focused is app.query_one("#filter")
        await pilot.press(*"flag:low_optimality")
        await pilot.press("enter")
        assert app.session.view == [3] and app.current == 3
        assert app.focused is app.queue
        await pilot.press("slash", "ctrl+u", *"status:error", "escape")
        await until(
            pilot, lambda: app.session.view == [2], "the filter typed then left"
        )  # after its debounce
        assert app.session.view == [2] and app.focused is app.queue
        app.set_filter("nothing-matches-this")
        await pilot.pause()
        assert app.session.view == [] and "No submission matches" in shown_text(app, "#detail-header")


async def test_sort_cycles_and_keeps_the_current_submission_and_the_header_position_follows(
    make_app: Callable[..., App], settle: Settle, mixed_batch: Path
) -> None:
    app = make_app([mixed_batch])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("j")
        await pilot.press("s")
        assert app.session.sort == "score" and app.current == 1
        assert app.session.view[-1] == 2  # the broken one has no score
        await pilot.press("s", "s", "s")
        assert app.session.sort == "input"
        # the header's position follows a new sort or filter
        await pilot.press("j", "j")
        assert app.current == 3 and shown_text(app, "#detail-header").startswith("4/4 ")
        await pilot.press("s", "s", "s")  # by status: the broken line (error) goes last
        assert app.session.sort == "status" and app.current == 3
        assert shown_text(app, "#detail-header").startswith("3/4 ")
        app.set_filter("-status:error")
        await pilot.pause()
        assert shown_text(app, "#detail-header").startswith("3/3 ")


async def test_number_keys_switch_tabs_and_draw_them(
    make_app: Callable[..., App], settle: Settle, mixed_batch: Path
) -> None:
    app = make_app([mixed_batch])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("j", "3")
        await pilot.pause()
        assert app.tabs.active == "responses"
        texts = [w.content.plain for w in app.query(".response-text")]
        assert texts == ["[/INST] Sure [bold]bold[/bold] {{ x }}", "[/x] closing tag"]
        for key, tab, needle, selector in (
            ("2", "prompt", "Repeat: [/INST]", "#prompt-text"),
            ("4", "rules", "Fired rules", "#rules-text"),
            ("5", "rewrite", "Final rewrite", "#rewrite-text"),
            ("6", "changes", "Edit a file in the config folder", "#changes-text"),
            ("7", "config", "Diagnostics (0)", "#config-text"),
        ):
            await pilot.press(key)
            await pilot.pause()
            assert app.tabs.active == tab and needle in shown_text(app, selector)
        await pilot.press("1")
        assert app.tabs.active == "overview"


async def test_command_palette_filters_by_flag(
    make_app: Callable[..., App], settle: Settle, until: Until, mixed_batch: Path
) -> None:
    app = make_app([mixed_batch])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        names = [command.name for command in palette_commands(app)]
        assert {"Accept", "Filter flag: low_optimality", "Filter status: done", "Sort by score"} <= set(names)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Filter flag: low_optimality")
        commands = app.screen.query_one(CommandList)
        await until(
            pilot, lambda: highlighted(commands) == "Filter flag: low_optimality", "the palette's search"
        )
        await pilot.press("enter")
        await until(pilot, lambda: app.query_one("#filter", Input).value, "the palette's command")
        assert app.query_one("#filter", Input).value == "flag:low_optimality"
        assert app.session.view == [3]


async def test_export_writes_reviewed_results(
    make_app: Callable[..., App], settle: Settle, mixed_batch: Path, tmp_path: Path
) -> None:
    app = make_app([mixed_batch])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("d", "x")
        await pilot.pause()
        assert isinstance(app.screen, InputScreen)
        assert app.screen.query_one(Input).value == str(tmp_path / "out.reviewed.jsonl")
        await pilot.press("enter")
        for worker in [w for w in app.workers if w.group == "export"]:
            await worker.wait()
        await pilot.pause()
        lines = [json.loads(line) for line in (tmp_path / "out.reviewed.jsonl").read_text().splitlines()]
        assert len(lines) == 4 and "error" in lines[2]
        assert lines[0]["corrected_ratings"]["accuracy"]["updated"] == 5.0
        assert lines[0]["review"]["decisions"][0]["action"] == "discard"


async def test_reopening_after_a_kill_resumes_with_every_decision(
    make_app: Callable[..., App], settle: Settle, mixed_batch: Path, tmp_path: Path
) -> None:
    app = make_app([mixed_batch])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("j", "a", "a")
        written = app.journal.path.read_bytes()
    # a kill in the middle of the next write leaves a torn line; what was acknowledged is all there
    app.journal.path.write_bytes(written + b'{"ts": "2025-01-01T00:00:00Z", "source": "x", "tar')
    again = make_app([mixed_batch])
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert again.current == 1
        assert decisions_column(again)[:3] == ["accept", "accept", "pending"]
        await pilot.press("a")
    assert [e["step"] for e in entries(again)] == [1, 2, 3]


async def test_a_broken_config_shows_its_diagnostics(
    make_app: Callable[..., App], settle: Settle, config_copy: Path
) -> None:
    (config_copy / "rules.yaml").write_text(
        "rating_rules:\n  - id: x\n    when: {respons_contains_any: [a]}\n", encoding="utf-8"
    )
    app = make_app([SAMPLE], config_dir=config_copy)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.tabs.active == "config"
        assert "error" in shown_text(app, "#config-text") and "rules.yaml:3" in shown_text(
            app, "#config-text"
        )
        await pilot.press("a")
        assert entries(app) == []
        await pilot.press("1")
        await settle(pilot)
        assert app.tabs.active == "overview"
        assert "the config has errors" in shown_text(app, "#overview-text")
        assert "has errors" in app.status_text().plain


async def test_live_rules_reevaluate_and_show_what_changed(
    make_app: Callable[..., App], settle: Settle, config_copy: Path, monkeypatch: Any
) -> None:
    monkeypatch.setattr("evalkit.tui.app.POLL_SECONDS", 0.1)
    app = make_app([SAMPLE], config_dir=config_copy, watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        rules = config_copy / "rules.yaml"

        def save(text: str) -> None:  # as editors save: whole, never a half-written file to poll
            staged = rules.with_name("rules.yaml.saving")
            staged.write_text(text, encoding="utf-8")
            staged.replace(rules)

        save(rules.read_text(encoding="utf-8").replace("delta: -0.5", "delta: -1.5"))
        deadline = time.monotonic() + 10
        while app.changes_seen == 0:
            assert time.monotonic() < deadline, "the config change was not picked up"
            await pilot.pause(0.1)
        await pilot.press("6")
        await pilot.pause()
        assert "rating accuracy: proposed 4.5 → 3.5" in shown_text(app, "#changes-text")
        assert app.query_one(ProposalsTable).proposals[0].proposed == 3.5
        save("rating_rules: [{id: broken}]\n")
        deadline = time.monotonic() + 10
        while app.session.config.ok:
            assert time.monotonic() < deadline, "the broken config was not picked up"
            await pilot.pause(0.1)
        assert app.query_one(ProposalsTable).proposals[0].proposed == 3.5  # the last good rules stay


async def test_a_hand_edited_journal_with_odd_values_is_skipped_not_shown(
    make_app: Callable[..., App], settle: Settle, tmp_path: Path
) -> None:
    journal = tmp_path / "edited.decisions.jsonl"
    source = str(SAMPLE)
    lines = [
        {"source": source, "target": "rating.accuracy", "action": "accept", "value": 4.5, "note": 5},
        {"source": source, "target": "label", "action": "edit", "value": 3, "note": None},
    ]
    journal.write_text(
        "".join(json.dumps({"ts": "t", **line, "step": n}) + "\n" for n, line in enumerate(lines, 1)),
        encoding="utf-8",
    )
    app = make_app([SAMPLE], journal=journal)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.skipped_entries == 2
        assert decisions_column(app)[0] == "pending"  # the proposal with the odd note, under the cursor
        await pilot.press("s", "s")  # sorting by label compares labels as text
        assert app.session.sort == "label"
        assert "rating.accuracy" in shown_text(app, "#proposal-detail")


async def test_config_diagnostics_read_as_check_prints_them(
    make_app: Callable[..., App], settle: Settle, config_copy: Path
) -> None:
    (config_copy / "rules.yaml").write_text("rating_rules:\n  - id: x\n    when: {a: [b]\n", encoding="utf-8")
    app = make_app([SAMPLE], config_dir=config_copy)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = shown_text(app, "#config-text")
        assert (
            f"{config_copy}/rules.yaml:3:11: error[yaml-syntax] the flow mapping '{{' is not closed" in text
        )


async def test_config_diagnostics_after_a_line_separator_in_a_string_name_the_editor_s_line(
    make_app: Callable[..., App], settle: Settle, config_copy: Path
) -> None:
    # U+2028, U+0085 and U+2029 end no line in an editor: the misspelt key is on line 4
    (config_copy / "rules.yaml").write_text(
        'rating_rules:\n  - id: x\n    description: "a\u2028b\u0085c\u2029d"\n    actoins: {set_flag: y}\n',
        encoding="utf-8",
    )
    app = make_app([SAMPLE], config_dir=config_copy)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert f"{config_copy}/rules.yaml:4:5: error[unknown-key] " in shown_text(app, "#config-text")


def proposal_columns_fit(app: App) -> bool:
    table = app.query_one(ProposalsTable)
    used = sum(column.get_render_width(table) for column in table.columns.values())
    return len(table.columns) == 4 and used <= table.scrollable_content_region.width


async def test_small_terminals_keep_the_proposed_value_and_the_decision_on_screen(
    make_app: Callable[..., App], settle: Settle
) -> None:
    app = make_app([SAMPLE])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert proposal_columns_fit(app)
        await pilot.press("a")
        assert decisions_column(app)[0] == "accept"
        for size in ((60, 20), (120, 40), (80, 24)):
            await pilot.resize_terminal(*size)
            await pilot.pause()
            await pilot.pause()
            assert proposal_columns_fit(app), size
            assert app.query_one(ProposalsTable).cursor_row == 1  # the cursor stays where it was
            assert decisions_column(app)[0] == "accept"


async def test_a_queue_taller_than_the_screen_scrolls_down_only(
    make_app: Callable[..., App], settle: Settle
) -> None:
    app = make_app(sorted(SAMPLE.parent.glob("*.json")))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert len(app.session.view) > app.queue.size.height
        assert app.queue.scrollbars_enabled == (True, False)


@pytest.fixture
def notices() -> Iterator[list[str]]:
    """Every message the app shows as a notification, recorded as it calls App.notify (the test's own
    monkeypatch is left to the test: undoing it must not stop the recording)."""
    shown: list[str] = []
    notify = TextualApp.notify

    def recorded(app: TextualApp, message: str, **options: Any) -> None:
        shown.append(message)
        notify(app, message, **options)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(TextualApp, "notify", recorded)
        yield shown


def journal_notices(notices: list[str]) -> list[str]:
    return [message for message in notices if "journal" in message]


async def test_the_strip_under_the_proposals_shows_the_one_under_the_cursor_in_full(
    make_app: Callable[..., App], settle: Settle
) -> None:
    app = make_app([SAMPLE.parent / "03_algorithms_dynamic_programming_duplicate.json"])
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        assert shown_text(app, "#proposal-detail").startswith("rating.accuracy: 2 → 2.88\n")
        app.proposals_table.focus()
        await pilot.press("down", "down", "down")  # the ranking: both sides look alike when cut to 10 cells
        row = app.proposals_table.render_line(4).text  # under the header and the three ratings
        assert row.split()[:7] == ["ranking", "resp_a", ">", "…", "resp_a", ">", "…"]  # cut, and says so
        strip = shown_text(app, "#proposal-detail")
        assert strip.startswith("ranking: resp_a > resp_b > resp_c > resp_a → resp_a > resp_b > resp_c\n")
        assert "duplicados" in strip  # then why
        await pilot.press("down")
        assert shown_text(app, "#proposal-detail").startswith("rewrite: 87 chars → 88 chars (the diff")


async def test_the_strip_shows_submission_text_literally_and_an_edited_value_in_full(
    make_app: Callable[..., App],
    settle: Settle,
    sample_data: dict[str, Any],
    variant: Callable[..., dict[str, Any]],
    write_jsonl: Callable[..., Path],
) -> None:
    first, second = sample_data["responses"][:2]
    responses = [{**first, "id": "[/INST]"}, {**second, "id": "[b]x"}]
    data = variant(sample_data, responses=responses, ranking=["[/INST]"])
    app = make_app([write_jsonl([data])])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.proposals_table
        table.move_cursor(row=[p.target for p in table.proposals].index("ranking"))
        await pilot.pause()
        assert shown_text(app, "#proposal-detail").startswith("ranking: [/INST] → [/INST] > [b]x\n")
        await pilot.press("l")
        await pilot.pause()
        app.screen.query_one(Input).value = "needs_a_second_reviewer [bold]"
        await pilot.press("enter")
        table.move_cursor(row=[p.target for p in table.proposals].index("label"))
        await pilot.pause()
        assert "decided: edit needs_a_second_reviewer [bold]\n" in shown_text(app, "#proposal-detail")


async def test_moving_through_the_proposals_repaints_without_a_new_layout(
    make_app: Callable[..., App], settle: Settle, monkeypatch: Any
) -> None:
    app = make_app([SAMPLE.parent / "03_algorithms_dynamic_programming_duplicate.json"])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        layouts: list[str] = []  # the widgets that asked for a new layout (Widget.refresh(layout=True))
        refresh = Widget.refresh

        def counted(widget: Widget, *regions: Any, **options: Any) -> Widget:
            if options.get("layout"):
                layouts.append(repr(widget))
            return refresh(widget, *regions, **options)

        monkeypatch.setattr(Widget, "refresh", counted)
        app.proposals_table.focus()
        for _ in range(50):  # anything focusing the table set off is laid out, later on a busy machine
            layouts.clear()
            await pilot.pause(0.05)
            if not layouts:
                break
        for _ in range(6):
            await pilot.press("down")
            await pilot.pause()
        assert shown_text(app, "#proposal-detail").startswith("flag.")
        assert layouts == []


async def test_a_journal_that_cannot_be_written_is_reported_at_once_and_the_app_stays_usable(
    make_app: Callable[..., App],
    settle: Settle,
    tmp_path: Path,
    monkeypatch: Any,
    read_only: Callable[[Path], None],
    notices: list[str],
) -> None:
    journal = tmp_path / "locked.decisions.jsonl"
    entry = {"source": str(SAMPLE), "target": "label", "action": "accept", "value": "good", "note": None}
    line = json.dumps({"ts": "t", **entry, "step": 1}) + "\n"
    journal.write_text(line, encoding="utf-8")
    read_only(journal)
    app = make_app([SAMPLE], journal=journal)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "read-only: the journal cannot be written" in app.status_text().plain
        assert journal_notices(notices) == [
            f"Read-only: {journal}: cannot write the journal: Permission denied. You can look through the "
            "queue; decisions are not saved until the journal can be written."
        ]
        await pilot.press("2")
        assert app.tabs.active == "prompt"  # looking still works
        await pilot.press("a")
        assert decisions_column(app)[0] == "pending"
        refused = f"Not saved: {journal}: cannot write the journal: Permission denied"
        assert journal_notices(notices)[-1] == refused
        monkeypatch.undo()  # the reviewer makes the journal writable again: the next decision is saved
        await pilot.press("a")
        assert decisions_column(app)[0] == "accept"
        assert "read-only" not in app.status_text().plain
    assert journal.read_text(encoding="utf-8").startswith(line)


async def test_an_absent_journal_in_a_writable_folder_is_neither_reported_nor_created_and_q_quits_with_0(
    make_app: Callable[..., App], settle: Settle, tmp_path: Path, notices: list[str]
) -> None:
    app = make_app([SAMPLE], journal=tmp_path / "new.decisions.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.journal_problem is None and journal_notices(notices) == []
        assert "read-only" not in app.status_text().plain
        await pilot.press("q")
    assert app.return_code == 0
    assert not (tmp_path / "new.decisions.jsonl").exists()


def footer_keys(app: App) -> list[Any]:
    """The key widgets (Textual's FooterKey: .key, .description) the footer of the screen on top shows."""
    return list(app.screen.query_one(KeyFooter).children)


async def test_the_footer_is_built_again_only_when_the_keys_it_shows_change(
    make_app: Callable[..., App], settle: Settle, until: Until
) -> None:
    app = make_app([SAMPLE])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        shown = footer_keys(app)
        assert [key.description for key in shown][:3] == ["Accept", "Discard", "Edit"]
        app.proposals_table.focus()  # the table shows the same keys as the queue
        await pilot.pause()
        await pilot.pause()
        assert app.focused is app.proposals_table and footer_keys(app) == shown  # the same widgets
        await pilot.press("slash")  # the filter takes typed letters: their bindings leave the footer
        await until(pilot, lambda: len(footer_keys(app)) == 2, "the filter's footer")
        assert [key.key for key in footer_keys(app)] == ["slash", "ctrl+p"]
        await pilot.press("escape")
        await until(pilot, lambda: len(footer_keys(app)) == len(shown), "the queue's footer again")
        assert [key.key for key in footer_keys(app)] == [key.key for key in shown]
