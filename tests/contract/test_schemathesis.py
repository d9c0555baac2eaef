"""Schemathesis, a checker nobody here wrote, against a real `rulesqa serve`: every operation of
/openapi.json with all its checks (status codes, content types, response schemas, negative and positive
data, unsupported methods...), the stateful phase included (the document's links chain ask -> feedback,
games -> game -> page). A fixed seed, one worker and a bounded number of examples make it deterministic;
any route added later is checked against its own declaration."""

import json
import re
import subprocess
import sys
import urllib.request
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

SEED = "20231"
EXAMPLES = "20"  # per operation and phase: about 450 requests, some seconds


def run_schemathesis(url: str, out: Path) -> tuple[subprocess.CompletedProcess, ET.Element]:
    junit = out / "junit.xml"
    command = [
        str(Path(sys.executable).parent / "st"), "run", f"{url}/openapi.json",
        "--checks", "all", "--phases", "examples,coverage,fuzzing,stateful",
        "--seed", SEED, "--max-examples", EXAMPLES, "--workers", "1",
        "--generation-database", "none", "--request-timeout", "10", "--no-color",
        "--report", "junit", "--report-junit-path", str(junit),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=out)
    return done, ET.parse(junit).getroot()


def operations(url: str) -> set[str]:
    with urllib.request.urlopen(url + "/openapi.json") as r:
        spec = json.load(r)
    return {f"{method.upper()} {path}" for path, ops in spec["paths"].items() for method in ops}


@pytest.fixture(params=["fake", pytest.param("e5", marks=pytest.mark.model)])
def server(request):
    """The fake model in `make check`; the real e5 as well in `make test` (its tokenizer meets the same input)."""
    return request.getfixturevalue(f"{request.param}_server")


def test_the_served_api_keeps_its_openapi_contract(server, tmp_path):
    done, junit = run_schemathesis(server.url, tmp_path)
    output = done.stdout + done.stderr
    (tmp_path / "schemathesis.log").write_text(output, encoding="utf-8")
    assert done.returncode == 0, output[-6000:]
    suite = junit if junit.tag == "testsuite" else junit.find("testsuite")
    assert (int(suite.get("failures")), int(suite.get("errors"))) == (0, 0), output[-6000:]
    # Every operation of the document was tested, then the stateful scenarios that follow its links.
    tested = {case.get("name") for case in suite.iter("testcase")}
    assert tested == operations(server.url) | {"Stateful tests"}
    assert len(operations(server.url)) >= 7
    for phase in ("Examples", "Coverage", "Fuzzing", "Stateful"):
        assert f"✅  {phase}" in output, output[-6000:]
    summary = output.split("SUMMARY")[-1]
    generated = re.search(r"(\d+) generated, (\d+) passed", summary)
    assert generated and generated[1] == generated[2] and int(generated[1]) > 300, summary
