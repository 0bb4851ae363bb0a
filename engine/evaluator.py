"""`Evaluator(config).evaluate(submission) -> Result`: the seed's phases in order, a pure function of the
compiled plan and one submission (no I/O, no globals)."""

from __future__ import annotations

from typing import Final

from evalkit import __version__
from evalkit.engine.config import Config, ConfigError
from evalkit.engine.context import RuleState, Signals
from evalkit.engine.phases import (
    PullCache,
    check_prompt,
    decide_label,
    finalize_rewrite,
    normalize_ranking,
    pull_dimensions,
    require_justification,
)
from evalkit.engine.plan import ConfigPlan, RulePlan
from evalkit.engine.result import FiredRule, Ratings, Result, SkippedRule
from evalkit.engine.submission import Submission, parse_submission

HEADS_KEPT: Final = 10_000
"""Summary lines an evaluator keeps formatted; past that they are dropped and formatted again."""


class Evaluator:
    def __init__(self, config: Config) -> None:
        if config.plan is None:
            raise ConfigError(config.diagnostics)
        self.config = config
        self.plan: ConfigPlan = config.plan
        self._pulls: PullCache = {}
        self._heads: dict[float, str] = {}
        """The global summary's first line for each mean adjustment met (`_summary`)."""
        self._meta_base = {
            "rule_version": self.plan.rule_version,
            "config_hash": config.config_hash,
            "evalkit_version": __version__,
        }

    def evaluate(self, submission: object, verdicts: tuple[bool, ...] | None = None) -> Result:
        """Evaluate a Submission, or a submission's plain data (a dict, as JSON or YAML reads it).

        Raises SubmissionError for anything that is not a valid submission. (Typed `object`, not
        `Submission | dict`: compiled, a parameter's type is checked on the way in, and a list given here
        must be a SubmissionError that names what was found, never a TypeError.) `verdicts`: whether each
        rating rule, then each ranking rule, holds on this submission, exactly as `plan.verdicts` finds
        them, from a caller that kept them from an earlier plan (the language server, after an edit)."""
        if not isinstance(submission, Submission):
            submission = parse_submission(submission)
        plan = self.plan
        signals = Signals.of(submission)
        corrected, rationale = pull_dimensions(plan, submission.ratings, self._pulls)
        state = RuleState(dict(corrected), plan.scale, plan.round_digits, plan.dedupe_comments)
        fired: list[FiredRule] = []
        skipped: list[SkippedRule | RulePlan] = []
        # the rating rules' verdicts, then the ranking rules'
        held = plan.verdicts(signals) if verdicts is None else verdicts
        self._run_rules(plan.rating_rules, held, signals, state, fired, skipped, plan.stop_after_first)
        ranking, ranking_feedback, ranking_issues = normalize_ranking(plan, submission)
        if plan.ranking_rules:
            ranking_verdicts = held[len(plan.rating_rules) :]
            self._run_rules(plan.ranking_rules, ranking_verdicts, signals, state, fired, skipped, False)
        rewrite_final, rewrite_fired, rewrite_skipped = finalize_rewrite(plan, submission)
        fired.extend(rewrite_fired)
        skipped.extend(rewrite_skipped)
        prompt_feedback, prompt_checks = check_prompt(plan, submission)
        require_justification(plan, submission, state)
        return Result(
            corrected_ratings=Ratings(dict(submission.ratings), state.corrected, rationale, state.moved_by),
            corrected_ranking=ranking,
            ranking_feedback=ranking_feedback,
            rewrite_final=rewrite_final,
            prompt_feedback=prompt_feedback,
            global_summary=self._summary(submission, state),
            comments=state.comments,
            fired_rules=fired,
            score=state.score,
            flags=state.flags,
            label=decide_label(plan, state),
            meta={**self._meta_base, "signals": signals.public(), "warnings": self._warnings(submission)},
            not_fired=skipped,
            signals=signals,
            ranking_issues=ranking_issues,
            prompt_checks=prompt_checks,
        )

    @staticmethod
    def _run_rules(
        rules: list[RulePlan],
        verdicts: tuple[bool, ...],
        signals: Signals,
        state: RuleState,
        fired: list[FiredRule],
        skipped: list[SkippedRule | RulePlan],
        stop_after_first: bool,
    ) -> None:
        stopped_by: str | None = None
        for index in range(min(len(rules), len(verdicts))):  # verdicts may run on past these rules
            rule, holds = rules[index], verdicts[index]  # (compiled, zip() is a call through Python's)
            if stopped_by is not None:
                skipped.append(SkippedRule(rule.id, rule.type, None, None, stopped_by))
            elif not holds:
                skipped.append(rule)  # a SkippedRule only when asked for
            else:
                detail = rule.when.explain(signals) if rule.reads_detail else None
                fired.append(
                    FiredRule(
                        rule.id,
                        rule.type,
                        detail,
                        [apply(state, signals, detail, rule.id) for apply in rule.actions],
                        rule.when,
                        signals,
                    )
                )
                if stop_after_first:
                    stopped_by = rule.id

    def _summary(self, submission: Submission, state: RuleState) -> str:
        ratings, corrected = submission.ratings, state.corrected
        mean = sum([abs(corrected[n] - v) for n, v in ratings.items()]) / len(ratings)
        heads = self._heads  # a mean takes few values (ratings move by halves): each is formatted once
        head = heads.get(mean)
        if head is None:
            if len(heads) >= HEADS_KEPT:
                heads.clear()
            head = heads[mean] = f"Mean absolute adjustment: {mean:.2f}."
        return head + "\n- " + "\n- ".join(state.comments) if state.comments else head

    def _warnings(self, submission: Submission) -> list[str]:
        low, high = self.plan.scale
        warnings = [
            f"ratings.{name} = {value:g} is outside the scale [{low:g}, {high:g}]; pulled and clamped"
            for name, value in submission.ratings.items()
            if not low <= value <= high
        ]
        responses = submission.responses
        if len(responses) > 1 and len({r.id for r in responses}) != len(responses):
            warnings.append("responses have duplicate ids; the ranking matches the first of each")
        return warnings
