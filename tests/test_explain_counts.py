"""``explain`` shows real training counts for every model, in a table that fits the terminal."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console
from rich.table import Table
from typer.testing import CliRunner

from ilpkit.cli.main import app
from ilpkit.cli.tables import fit_table
from ilpkit.core.model_files import load_model

runner = CliRunner()
CLASSIC = "eastbound(A) :- has_car(A,B), short(B), closed(B)."


@pytest.fixture(scope="module")
def gleaner_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("g") / "g.json"
    result = runner.invoke(
        app,
        ["learn", "trains", "--learner", "gleaner", "--set", "learner.seeds=3",
         "--set", "learner.clauses_per_seed=50", "--out", str(out), "-q"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return out


def test_gleaner_model_stores_each_rules_training_counts(gleaner_model: Path) -> None:
    rules = load_model(gleaner_model).rules()
    assert rules and all(r.tp > 0 for r in rules)  # every kept clause covers a positive
    for r in rules:
        assert r.precision == pytest.approx(r.tp / (r.tp + r.fp))
        assert r.recall == pytest.approx(r.tp / 5)  # trains: 5 positives, all training
    # Michalski's classic rule covers all five eastbound trains and no westbound one.
    classic = [r for r in rules if str(r.clause) == CLASSIC]
    if classic:
        assert (classic[0].tp, classic[0].fp) == (5, 0)


def test_gleaner_counts_match_the_coverage_command(gleaner_model: Path) -> None:
    for rule in load_model(gleaner_model).rules()[:3]:
        result = runner.invoke(app, ["coverage", "trains", "--clause", str(rule.clause), "--json"])
        assert result.exit_code == 0, result.output
        assert f'"tp": {rule.tp:g}' in result.output.replace(".0,", ",")
        assert f'"fp": {rule.fp:g}' in result.output.replace(".0,", ",")


def test_gleaner_explain_shows_counts_not_zeros(gleaner_model: Path) -> None:
    result = runner.invoke(app, ["explain", str(gleaner_model)])
    assert result.exit_code == 0
    assert "1.000" in result.output  # some rule with precision 1 (zeros everywhere before)


def test_wide_table_drops_columns_in_order_and_says_so() -> None:
    table = Table(title="t")
    names = ("round", "alpha", "r", "weak", "h", "rule", "w.prec", "w.rec", "prec", "rec", "TP")
    for name in names:
        table.add_column(name)
    table.add_row("1", "0.5493", "0.5000", "clause", "1.000", "p(A) :- q(A,B), r(B)." * 3,
                  "0.500", "1.000", "0.500", "1.000", "5")  # fmt: skip
    console = Console(width=80, record=True)
    fit_table(table, console)
    headers = [str(c.header) for c in table.columns]
    assert "rule" in headers and "TP" in headers and "prec" in headers
    assert "w.prec" not in headers  # the weighted columns go first
    console.print(table)
    text = console.export_text()
    assert all(len(line) <= 80 for line in text.splitlines())
    assert "not shown at 80 columns: w.prec" in text
    assert "…" not in text  # nothing cut: the rule text is wrapped instead


def test_a_table_that_fits_is_left_whole() -> None:
    table = Table()
    for name in ("#", "rule", "TP"):
        table.add_column(name)
    table.add_row("1", "p(A).", "3")
    fit_table(table, Console(width=80))
    assert [str(c.header) for c in table.columns] == ["#", "rule", "TP"]
    assert table.caption is None


def _builtin_learners() -> list[str]:
    from ilpkit.core.plugins import PluginManager

    return sorted(spec.name for spec in PluginManager(entry_points=False).specs("learner"))


@pytest.mark.parametrize("name", _builtin_learners())
def test_every_learners_rules_carry_training_counts(name: str) -> None:
    import ilpkit
    from ilpkit.core.learner import LearnerCapabilities, capabilities_of
    from ilpkit.core.plugins import PluginManager

    factory = PluginManager(entry_points=False).get("learner", name).factory
    caps = capabilities_of(factory) if isinstance(factory, type) else LearnerCapabilities()
    model = ilpkit.learn(
        "trains", learner=name, settings={"nodes": 50}, options={"learner": caps.quick_options}
    )
    rules = model.rules()
    assert rules, f"{name} learnt no rule on trains"
    # every rule covers some training example: all-zero counts mean none were stored
    assert all(r.tp + r.fp > 0 for r in rules), [(str(r.clause), r.tp, r.fp) for r in rules]
