"""The cluster options of `rulesqa index` and `rulesqa serve` refuse what cannot work, in one line with
exit code 2, before joining any cluster (no ray needed)."""

import pytest
from typer.testing import CliRunner

from rulesqa.cli import app


@pytest.mark.parametrize("args, message", [
    (["serve", "--shards", "2"], "--shards sert un index partagé sur une grappe : avec --ray ADRESSE"),
    (["index", "--game", "karuba", "--shards", "2"], "--game et --remove modifient un index unique"),
])
def test_impossible_combinations(args, message):
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert result.stderr.strip().splitlines() == [result.stderr.strip()]  # one line
    assert result.stderr.strip().startswith(f"rulesqa: erreur : {message}")


def test_a_malformed_ray_address_is_a_setting_error(monkeypatch):
    monkeypatch.setenv("RULESQA_RAY_ADDRESS", "pas une adresse")
    result = CliRunner().invoke(app, ["index", "--quiet"])
    assert result.exit_code == 2
    assert result.stderr.strip().startswith("rulesqa: erreur : réglage invalide RULESQA_RAY_ADDRESS")


def test_autoscale_bounds_are_checked(tmp_path):
    pytest.importorskip("ray.serve", reason="Ray absent : pip install -e '.[cluster]'")
    from rulesqa.cluster_serve import scaling
    from rulesqa.errors import UsageError

    assert scaling(3, None, 2.0).options() == {"num_replicas": 3}
    options = scaling(1, "2:8", 4.0).options()["autoscaling_config"]
    assert (options["min_replicas"], options["max_replicas"], options["target_ongoing_requests"]) == (2, 8, 4.0)
    for bad in ("8:2", "0:3", "deux:trois", "4"):
        with pytest.raises(UsageError, match="--autoscale attend MIN:MAX"):
            scaling(1, bad, 2.0)
