"""The questions log through the HTTP API, on SQLite and PostgreSQL: ask_id, feedback, /health, /admin."""

import json

import pytest
from fastapi.testclient import TestClient

from service.engine.decide.abstention import AbstentionPolicy

from service.web.app import create_app
from service.engine.calibration import Calibration
from service.runtime.settings import Settings
from tests.fakes import fake_answerer

NUGGETS = "Les pépites d'or rapportent combien à la fin ?"
OFF_TOPIC = "Peut-on jouer avec des licornes volantes ?"
TOKEN = "s3cret-admin-token-0123456789"


@pytest.fixture(scope="module")
def answerer(fake_index):
    return fake_answerer(fake_index, Calibration(abstention=AbstentionPolicy(threshold=0.2)))


def app_for(fake_index, answerer, **settings):
    return create_app(Settings(index_dir=fake_index, **settings), answerer)


@pytest.fixture
def client(fake_index, answerer, db_url):
    with TestClient(app_for(fake_index, answerer, log_questions=True, database_url=db_url,
                            admin_token=TOKEN)) as c:
        yield c


def ask(client, body):
    r = client.post("/api/ask", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def logged(client) -> dict:
    writer = client.app.state.log_writer
    assert writer.flush(timeout=10)
    return {r["ask_id"]: r for r in writer.store.rows()}


def feedback(client, body):
    data = body if isinstance(body, str) else json.dumps(body)
    return client.post("/api/feedback", content=data, headers={"content-type": "application/json"})


def test_each_answer_is_logged_under_its_ask_id(client, answerer):
    found = ask(client, {"question": NUGGETS, "game": "karuba", "client": "page"})
    refused = ask(client, {"question": OFF_TOPIC})
    assert found["ask_id"] != refused["ask_id"]
    # The answer itself is unchanged, only its id added.
    assert {**found, "ask_id": None} == answerer.ask(NUGGETS, "karuba").to_dict()
    rows = logged(client)
    row = rows[found["ask_id"]]
    assert (row["question"], row["game_asked"], row["game_routed"], row["found"], row["client"]) == (
        NUGGETS, "karuba", "karuba", True, "page")
    assert row["passage_id"] == found["answer"]["passage_id"] and row["pages"] == [6]
    assert row["answer_set"] == found["answer"]["passage_ids"] and row["latency_ms"] > 0
    other = rows[refused["ask_id"]]
    assert other["found"] is False and other["client"] == "api" and other["game_asked"] is None
    assert other["refusal_reason"] == refused["refusal"]["reason"] and other["passage_id"] is None
    assert client.get("/health").json()["log"] == "ok"


def test_feedback_is_taken_once_and_unknown_answers_are_404(client):
    answer = ask(client, {"question": NUGGETS, "game": "karuba", "client": "widget"})
    # Sent at once: the feedback waits for its row rather than calling it unknown.
    r = feedback(client, {"ask_id": answer["ask_id"], "helpful": False, "comment": "Pas la bonne page."})
    assert r.status_code == 204 and r.content == b""
    row = logged(client)[answer["ask_id"]]
    assert row["helpful"] is False and row["comment"] == "Pas la bonne page."
    again = feedback(client, {"ask_id": answer["ask_id"], "helpful": True})
    assert again.status_code == 409 and "déjà été donné" in again.json()["detail"]
    unknown = feedback(client, {"ask_id": "ab" * 12, "helpful": True})
    assert unknown.status_code == 404 and "réponse inconnue" in unknown.json()["detail"]


@pytest.mark.parametrize("body, status, fragment", [
    ("{", 400, "JSON invalide"),
    ({"helpful": True}, 422, "« ask_id » est obligatoire"),
    ({"ask_id": "ab" * 12}, 422, "« helpful » est obligatoire"),
    ({"ask_id": "ab" * 12, "helpful": "oui"}, 422, "« helpful » doit valoir true ou false"),
    ({"ask_id": "pas un id", "helpful": True}, 422, "« ask_id » doit être l'ask_id d'une réponse"),
    ({"ask_id": "ab" * 12, "helpful": True, "comment": "x" * 501}, 422, "500 caractères au plus"),
    ({"ask_id": "ab" * 12, "helpful": True, "note": "x"}, 422, "champ inconnu « note » (champs admis : ask_id, "
                                                               "helpful, comment)"),
])
def test_bad_feedback_bodies_get_a_french_4xx(client, body, status, fragment):
    r = feedback(client, body)
    assert r.status_code == status and fragment in r.json()["detail"]


def test_a_500_character_comment_is_accepted(client):
    answer = ask(client, {"question": NUGGETS, "game": "karuba"})
    comment = "é" * 499 + "!"  # 500 characters, 999 bytes in UTF-8
    assert feedback(client, {"ask_id": answer["ask_id"], "helpful": True, "comment": comment}).status_code == 204
    row = logged(client)[answer["ask_id"]]
    assert (row["helpful"], row["comment"]) == (True, comment)  # kept whole, not cut at a byte limit


def test_an_unknown_client_kind_is_refused(client):
    r = client.post("/api/ask", json={"question": NUGGETS, "client": "cli"})
    assert r.status_code == 422 and r.json()["detail"] == "« client » doit valoir « page », « widget » ou « api »"


def test_admin_needs_the_token(client):
    ask(client, {"question": OFF_TOPIC})
    ask(client, {"question": "<script>alert(1)</script> licornes volantes ?"})
    logged(client)
    assert client.get("/admin").status_code == 401
    wrong = client.get("/admin", headers={"authorization": "Bearer " + TOKEN[:-1] + "x"})
    assert wrong.status_code == 401 and wrong.headers["www-authenticate"].startswith("Bearer")
    assert "jeton" in wrong.json()["detail"]
    for r in (client.get("/admin", headers={"authorization": f"Bearer {TOKEN}"}),
              client.get("/admin", params={"token": TOKEN})):
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
        assert "Ce que les règles ne disent pas" in r.text and OFF_TOPIC in r.text
        assert "<script>alert" not in r.text and "&lt;script&gt;alert(1)&lt;/script&gt;" in r.text
        assert r.headers["cache-control"] == "no-store"


def test_admin_is_404_without_a_configured_token(fake_index, answerer, tmp_path):
    with TestClient(app_for(fake_index, answerer, log_questions=True,
                            database_url=f"sqlite:///{tmp_path / 'x.db'}")) as c:
        r = c.get("/admin", params={"token": TOKEN})
        assert r.status_code == 404 and r.json() == {"detail": "chemin inconnu : /admin", "code": "not_found"}


def test_with_logging_off_nothing_is_stored(fake_index, answerer, tmp_path):
    db = tmp_path / "off.db"
    with TestClient(app_for(fake_index, answerer, log_questions=False, database_url=f"sqlite:///{db}")) as c:
        body = ask(c, {"question": NUGGETS, "game": "karuba"})
        assert body["ask_id"] is None
        r = feedback(c, {"ask_id": "ab" * 12, "helpful": True})
        assert r.status_code == 404 and "désactivé" in r.json()["detail"]
        assert c.get("/health").json()["log"] == "off"
    assert not db.exists()


def test_a_broken_database_never_fails_an_answer(fake_index, answerer, tmp_path):
    path = tmp_path / "ro.db"
    from service.questions_log.store import Store

    Store(f"sqlite:///{path}").open().close()
    url = f"sqlite:///file:{path}?mode=ro&uri=true"
    with TestClient(app_for(fake_index, answerer, log_questions=True, database_url=url)) as c:
        for _ in range(5):
            body = ask(c, {"question": NUGGETS, "game": "karuba"})
            assert body["found"] is True and body["ask_id"]
        assert c.app.state.log_writer.flush(timeout=10)
        assert c.get("/health").json()["log"] == "degraded"
        # The feedback cannot be written either: said as such, with the cause.
        r = feedback(c, {"ask_id": body["ask_id"], "helpful": True})
        assert r.status_code == 503 and "readonly" in r.json()["detail"]


def test_feedback_on_a_database_gone_read_only_is_503(fake_index, answerer, tmp_path):
    path = tmp_path / "later-ro.db"
    with TestClient(app_for(fake_index, answerer, log_questions=True, database_url=f"sqlite:///{path}")) as c:
        body = ask(c, {"question": NUGGETS, "game": "karuba"})
        assert c.app.state.log_writer.flush(timeout=10)
    from service.questions_log.store import Store
    from service.questions_log.writer import LogWriter

    app = app_for(fake_index, answerer, log_questions=True, database_url=f"sqlite:///{path}")
    with TestClient(app) as c:
        c.app.state.log_writer.close()
        c.app.state.log_writer = LogWriter(Store(f"sqlite:///file:{path}?mode=ro&uri=true"), 90).start()
        r = feedback(c, {"ask_id": body["ask_id"], "helpful": False})
        assert r.status_code == 503 and r.json()["detail"].startswith("journal des questions : enregistrement")


def test_a_postgresql_that_is_down_never_fails_or_slows_an_answer(fake_index, answerer):
    import time

    from testbed.ports import free_port

    port = free_port()  # nothing listens there
    url = f"postgresql+psycopg://rulesqa@127.0.0.1:{port}/rulesqa"
    with TestClient(app_for(fake_index, answerer, log_questions=True, database_url=url)) as c:
        slowest = 0.0
        for _ in range(5):
            started = time.perf_counter()
            body = ask(c, {"question": NUGGETS, "game": "karuba"})
            slowest = max(slowest, time.perf_counter() - started)
            assert body["found"] is True
        assert slowest < 1.0  # the connection attempts happen in the writer thread, not here
        assert c.app.state.log_writer.flush(timeout=15)
        assert c.app.state.log_writer.dropped == 5
        assert c.get("/health").json()["log"] == "degraded"


def choose(client, body):
    return client.post("/api/choice", json=body)


def test_a_tapped_choice_is_logged_as_a_confirmed_pair(client):
    answer = ask(client, {"question": NUGGETS, "game": "karuba", "client": "page"})
    assert not answer["sure"] and len(answer["choices"]) >= 2
    offered = [c["passage_id"] for c in answer["choices"]]
    # Sent at once, like feedback: the choice waits for its row.
    r = choose(client, {"ask_id": answer["ask_id"], "passage_id": offered[1]})
    assert r.status_code == 204 and r.content == b""
    row = logged(client)[answer["ask_id"]]
    assert (row["sure"], row["choices"], row["chosen_passage_id"]) == (False, offered, offered[1])
    assert row["chosen_at"] is not None
    # Another tap replaces it (the player changed their mind).
    assert choose(client, {"ask_id": answer["ask_id"], "passage_id": offered[0]}).status_code == 204
    assert logged(client)[answer["ask_id"]]["chosen_passage_id"] == offered[0]


def test_a_choice_not_offered_or_for_an_unknown_answer_is_refused(client):
    answer = ask(client, {"question": NUGGETS, "game": "karuba"})
    other = choose(client, {"ask_id": answer["ask_id"], "passage_id": "cubirds-000000000000"})
    assert other.status_code == 409 and other.json()["code"] == "not_offered" and "proposé" in other.json()["detail"]
    unknown = choose(client, {"ask_id": "ab" * 12, "passage_id": answer["choices"][0]["passage_id"]})
    assert unknown.status_code == 404 and unknown.json()["code"] == "unknown_answer"
    bad = choose(client, {"ask_id": answer["ask_id"], "passage_id": "Pas Un Id"})
    assert bad.status_code == 422 and "passage_id" in bad.json()["detail"]
    assert logged(client)[answer["ask_id"]]["chosen_passage_id"] is None


def test_the_report_lists_confirmed_pairs(client):
    from service.questions_log.report import build_report

    answer = ask(client, {"question": NUGGETS, "game": "karuba"})
    chosen = answer["choices"][1]["passage_id"]
    assert choose(client, {"ask_id": answer["ask_id"], "passage_id": chosen}).status_code == 204
    logged(client)
    report = build_report(client.app.state.log_writer.store)
    pair = next(c for c in report["confirmed"] if c["ask_id"] == answer["ask_id"])
    assert (pair["question"], pair["passage_id"], pair["moved"]) == (NUGGETS, chosen, True)
