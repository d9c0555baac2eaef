"""Every command reads its settings through one class: a bad RULESQA_* value is one line and exit code 2."""

import pytest
from typer.testing import CliRunner

from rulesqa.cli import app

COMMANDS = [
    ["passages"],
    ["model", "build"],
    ["index", "--quiet"],
    ["ask", "Combien de cartes ?"],
    ["eval", "--split", "dev"],
    ["serve", "--port", "1"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
@pytest.mark.parametrize("variable, value", [("RULESQA_THREADS", "beaucoup"), ("RULESQA_ADAPT", "peut-être"),
                                             ("RULESQA_MAX_BODY_BYTES", "12")])
def test_a_bad_setting_stops_every_command_with_one_line(monkeypatch, command, variable, value):
    monkeypatch.setenv(variable, value)
    result = CliRunner().invoke(app, command)
    assert result.exit_code == 2, result.output
    errors = result.stderr.strip().splitlines()
    assert len(errors) == 1 and errors[0].startswith(f"rulesqa: erreur : réglage invalide {variable}")
    assert "Traceback" not in result.output
