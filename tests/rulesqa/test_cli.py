"""The issues' acceptance checks with the real model, through the real command line and server."""

import json
import os
import subprocess
import sys
import time

import httpx
import pytest
from testbed.ports import free_port

pytestmark = pytest.mark.model
RULESQA = [sys.executable, "-m", "rulesqa"]


def rulesqa(*args, env=None):
    return subprocess.run([*RULESQA, *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "HF_HUB_OFFLINE": "1", **(env or {})})


def test_ask_gold_nuggets_cites_page_6(real_index):
    out = rulesqa("ask", "Les pépites d'or rapportent combien à la fin ?", "--game", "karuba", "--json",
                  "--index", str(real_index))
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["found"] is True
    assert result["passages"][0]["pages"] == [6] and "2 points" in result["passages"][0]["text"]
    assert result["answer"]["citation"] == "Karuba, livret p. 6"


def test_ask_off_topic_abstains(real_index):
    out = rulesqa("ask", "Quelle est la recette de la pâte à crêpes ?", "--json", "--index", str(real_index))
    result = json.loads(out.stdout)
    assert result["found"] is False and result["answer"] is None and result["passages"]


def test_ask_readable_output_and_bad_input(real_index):
    out = rulesqa("ask", "Combien de dés peut-on acheter par tour ?", "--game", "cubitos", "--index", str(real_index))
    assert out.returncode == 0 and "Source : Cubitos, livret p. 11, 13" in out.stdout
    for args, fragment in [(["   "], "la question est vide"), (["x" * 1001], "trop longue"),
                           (["ok ?", "--k", "0"], "entre 1 et 20"), (["ok ?", "--game", "uno"], "jeu inconnu")]:
        bad = rulesqa("ask", *args, "--index", str(real_index))
        assert bad.returncode == 2 and fragment in bad.stderr and "Traceback" not in bad.stderr
        assert len(bad.stderr.strip().splitlines()) == 1


def test_index_of_another_model_is_refused_with_the_fix(real_index, tmp_path):
    from tests.fakes import CORPUS, FakeEmbedder
    from indexer.build import build_index

    build_index(CORPUS, tmp_path / "fake", FakeEmbedder(), progress=False)
    out = rulesqa("ask", "Comment gagner ?", "--index", str(tmp_path / "fake"))
    assert out.returncode == 2 and "rulesqa index" in out.stderr and "fake-hashing" in out.stderr



def test_real_server_builds_missing_index_and_answers_over_http(tmp_path):
    port = free_port()
    index = tmp_path / "index"  # missing: the server must build it from the corpus
    proc = subprocess.Popen([*RULESQA, "serve", "--port", str(port), "--index", str(index)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "HF_HUB_OFFLINE": "1"})
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.5)
        health = httpx.get(f"{base}/health").json()
        # Built as `rulesqa index` builds by default (by a child process): the base e5, inside the index,
        # with its measured calibration.
        assert health["model"] == "multilingual-e5-small" and health["passages"] == 81
        assert health["calibration"] == "calibrated" and (index / "model" / "rulesqa_build.json").is_file()
        r = httpx.post(f"{base}/api/ask", json={"question": "Combien de dés peut-on acheter par tour ?", "game": "cubitos"})
        body = r.json()
        assert r.status_code == 200 and body["found"] is True
        assert set(body["passages"][0]["pages"]) & {11, 13}
        bad = httpx.post(f"{base}/api/ask", json={"question": ""})
        assert bad.status_code == 422 and bad.json() == {"detail": "la question est vide", "code": "invalid_request"}
        assert (index / "manifest.json").is_file()
    finally:
        proc.terminate()
        log = proc.communicate(timeout=30)[0]
    assert "POST /api/ask 200" in log and "POST /api/ask 422" in log  # the access log lines


def test_another_corpus_indexed_elsewhere_leaves_the_main_index_answering_the_same(real_index, tmp_path):
    import shutil

    from tests.fakes import CORPUS

    question = ["ask", "Les pépites d'or rapportent combien à la fin ?", "--game", "karuba", "--json", "--no-log",
                "--index", str(real_index)]
    before = rulesqa(*question)
    other = tmp_path / "corpus"
    shutil.copytree(CORPUS, other)
    (other / "cubirds.md").unlink()
    built = rulesqa("index", "--quiet", "--corpus", str(other), "--out", str(tmp_path / "other-index"))
    assert built.returncode == 0, built.stderr
    after = rulesqa(*question)
    assert after.returncode == 0 and json.loads(after.stdout) == json.loads(before.stdout)
    assert json.loads(before.stdout)["answer"]["citation"] == "Karuba, livret p. 6"


def test_eval_json_prints_every_metric_per_mode(real_index):
    out = rulesqa("eval", "--json", "--index", str(real_index))
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["split"] == "test" and result["modes"] == ["dense", "lexical", "hybrid"]
    for mode in result["modes"]:
        overall = result["results"][mode]["overall"]
        assert set(overall) == {"hit@1", "hit@3", "mrr@10", "page@1", "abstain_precision", "abstain_recall",
                                "false_refusal", "routing", "set_coverage", "set_size", "refusal_off_topic",
                                "refusal_other_game", "refusal_not_in_rules", "refusal_reason",
                                "sure_precision", "sure_rate", "one_tap", "game_kept",
                                "latency_p50", "latency_p95"}
        assert 0 <= overall["hit@1"] <= overall["hit@3"] <= 1
        assert set(result["results"][mode]["per_game"]) >= {"cubirds", "cubitos", "karuba", "sans-arret"}
    pairs = result["significance"]["pairs"]
    # 3 mode pairs x (ranx's paired test on 2 metrics + McNemar on each question's outcome and routing)
    assert len(pairs) == 12 and all(0 <= p["p_value"] <= 1 for p in pairs)
    assert {p["metric"] for p in pairs} == {"mrr@10", "hit@1", "outcome", "routing"}
    assert all(p["better"] >= 0 and p["worse"] >= 0 for p in pairs if p["metric"] in ("outcome", "routing"))


def test_calibrate_refuses_the_test_split(real_index):
    out = rulesqa("eval", "--split", "test", "--calibrate", "--index", str(real_index))
    assert out.returncode == 2 and "dev" in out.stderr


def test_ask_explain_shows_what_the_judge_read(real_index):
    out = rulesqa("ask", "Les pépites d'or rapportent combien ?", "--game", "karuba", "--json", "--explain",
                  "--no-log", "--index", str(real_index))
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert [p["id"] for p in result["explain"]["passages"]] == [p["id"] for p in result["passages"]]
    assert result["explain"]["passages"][0]["features"]["dense"] > 0
    text = rulesqa("ask", "Les pépites d'or rapportent combien ?", "--game", "karuba", "--explain", "--no-log",
                   "--index", str(real_index))
    assert text.returncode == 0 and "Ce que le juge a lu" in text.stdout and "asks_number=1" in text.stdout
