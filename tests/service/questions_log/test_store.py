"""The questions log's store on SQLite and PostgreSQL: records, feedback once, retention, schema version."""

from datetime import timedelta

import pytest
from sqlalchemy import inspect

from service.questions_log.errors import LogStoreError
from service.questions_log.schema import SCHEMA_VERSION, asks, schema_version
from service.questions_log.store import AskRecord, FeedbackExistsError, Store, UnknownAskError, new_ask_id, utcnow


def rec(question="Combien de dés ?", found=True, game="cubitos", asked_at=None, **kw) -> AskRecord:
    values = dict(ask_id=new_ask_id(), question=question, game_asked=None, game_routed=game, found=found,
                  refusal_reason=None if found else "not_in_rules", passage_id="cubitos-1" if found else None,
                  pages=[11, 13] if found else [], answer_set=["cubitos-1", "cubitos-2"] if found else [],
                  latency_ms=4.2, client="api")
    values.update(kw)
    if asked_at is not None:
        values["asked_at"] = asked_at
    return AskRecord(**values)


def test_records_round_trip_with_their_pages_and_answer_set(store):
    a, b = rec(), rec("Combien ça coûte ?", found=False, client="widget")
    store.record_many([a, b])
    rows = {r["ask_id"]: r for r in store.rows()}
    assert rows[a.ask_id]["pages"] == [11, 13] and rows[a.ask_id]["answer_set"] == ["cubitos-1", "cubitos-2"]
    assert rows[b.ask_id]["found"] is False and rows[b.ask_id]["refusal_reason"] == "not_in_rules"
    assert rows[b.ask_id]["client"] == "widget" and rows[b.ask_id]["helpful"] is None
    assert store.count() == 2


def test_nothing_identifying_the_player_is_a_column(store):
    columns = {c["name"] for c in inspect(store.engine).get_columns("asks")}
    assert columns == {c.name for c in asks.columns}
    assert not columns & {"ip", "ip_address", "user_agent", "cookie", "session", "remote_addr"}


def test_a_batch_is_written_whole_or_not_at_all(store):
    first = rec()
    store.record_many([first])
    with pytest.raises(LogStoreError, match="écriture impossible"):
        store.record_many([rec("nouvelle ?"), rec(ask_id=first.ask_id)])  # the second one collides
    assert store.count() == 1


def test_feedback_once_per_answer(store):
    a = rec()
    store.record_many([a])
    store.feedback(a.ask_id, False, "La page ne parle pas de ça.")
    row = store.rows()[0]
    assert row["helpful"] is False and row["comment"] == "La page ne parle pas de ça." and row["feedback_at"]
    with pytest.raises(FeedbackExistsError, match="déjà été donné"):
        store.feedback(a.ask_id, True)
    assert store.rows()[0]["helpful"] is False
    with pytest.raises(UnknownAskError, match="réponse inconnue"):
        store.feedback("0" * 24, True)


def test_retention_deletes_only_the_old_rows(store):
    now = utcnow()
    old, recent = rec(asked_at=now - timedelta(days=91)), rec(asked_at=now - timedelta(days=89))
    store.record_many([old, recent])
    assert store.purge(90, now=now) == 1
    assert [r["ask_id"] for r in store.rows()] == [recent.ask_id]


def test_rows_filter_by_days_and_game(store):
    now = utcnow()
    store.record_many([rec(asked_at=now - timedelta(days=10)), rec(game="karuba"), rec(game=None, game_asked="karuba")])
    assert len(store.rows(since_days=7)) == 2
    assert len(store.rows(game="karuba")) == 2
    assert len(store.rows(since_days=7, game="cubitos")) == 0


def test_reopening_keeps_the_rows_and_a_newer_schema_is_refused(db_url):
    first = Store(db_url).open()
    first.record_many([rec()])
    first.close()
    again = Store(db_url).open()  # create-if-missing is idempotent
    assert again.count() == 1
    with again.engine.begin() as conn:
        assert conn.execute(schema_version.select()).scalar() == SCHEMA_VERSION
        conn.execute(schema_version.update().values(version=SCHEMA_VERSION + 1))
    again.close()
    with pytest.raises(LogStoreError, match="plus récent que ce rulesqa"):
        Store(db_url).open()
