"""The shipped gold set is valid against the real corpus, and bad files fail with FILE:LINE."""

import json
import re
import unicodedata
from collections import Counter

import pytest

from eval.gold import REFUSALS, SPLITS, TAGS, GoldQuestion, GoldSetError, load_questions
from tests.fakes import REPO
from indexer.passages import load_passages

QA_SECTION = "Les règles en questions"
COPY_WORDS = 8  # a question sharing this many consecutive words with a corpus line was copied from it


@pytest.fixture(scope="module")
def corpus():
    docs, passages = load_passages(REPO / "corpus")
    return docs, passages


@pytest.fixture(scope="module")
def gold() -> dict[str, list[GoldQuestion]]:
    return {split: load_questions(split) for split in SPLITS}


def every(gold) -> list[GoldQuestion]:
    return [q for split in SPLITS for q in gold[split]]


def test_splits_load_with_their_name(gold):
    for split in SPLITS:
        assert gold[split] and all(q.split == split for q in gold[split])
        assert all(q.id.startswith(split[0]) for q in gold[split])


def test_ids_unique_across_splits(gold):
    ids = Counter(q.id for q in every(gold))
    assert [i for i, n in ids.items() if n > 1] == []


def test_games_exist(gold, corpus):
    known = {doc.game.id for doc in corpus[0]}
    for q in every(gold):
        assert q.game in known | {None}, q.source
        assert q.gold_game in known | {None}, q.source


def test_every_span_is_verbatim_in_a_passage_of_its_game(gold, corpus):
    passages = corpus[1]
    for q in every(gold):
        for span in q.gold_spans:
            assert any(span in p.text for p in passages if p.game == q.gold_game), f"{q.source}: {span!r}"


def test_gold_pages_are_the_pages_of_the_matching_passages(gold, corpus):
    passages = corpus[1]
    for q in every(gold):
        if not q.answerable:
            continue
        matching = [p for p in passages if q.is_relevant(p.game, p.text)]
        assert matching, q.source
        pages = {page for p in matching for page in p.pages}
        assert pages <= set(q.gold_pages), f"{q.source}: pages {sorted(pages)} hors de {list(q.gold_pages)}"
        assert set(q.gold_pages) <= pages, f"{q.source}: gold_pages {list(q.gold_pages)} sans passage"


def _plain(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.lower())
    return re.sub(r"[^a-z0-9]+", " ", "".join(c for c in text if not unicodedata.combining(c))).strip()


def test_questions_are_not_the_corpus_question_lines(gold, corpus):
    corpus_questions = {_plain(p.title) for p in corpus[1] if p.section == QA_SECTION and p.title}
    assert len(corpus_questions) > 20
    copied = [q.source for q in every(gold) if _plain(q.question) in corpus_questions]
    assert copied == []


def _words(text: str) -> list[str]:
    text = unicodedata.normalize("NFC", text.lower()).replace("\u2019", "'").replace("\u2018", "'")
    return re.findall(r"\w+", text)


def _ngrams(words: list[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(words[i:i + n]) for i in range(len(words) - n + 1)}


def test_questions_do_not_copy_corpus_lines(gold):
    corpus_grams = set()
    for path in sorted((REPO / "corpus").glob("*.md")):
        if path.name != "README.md":
            for line in path.read_text(encoding="utf-8").splitlines():
                corpus_grams |= _ngrams(_words(line), COPY_WORDS)
    assert corpus_grams
    copied = [q.source for q in every(gold) if _ngrams(_words(q.question), COPY_WORDS) & corpus_grams]
    assert copied == []


def test_no_question_text_in_both_splits(gold):
    dev = {" ".join(_words(q.question)): q.source for q in gold["dev"]}
    shared = [(dev[key], q.source) for q in gold["test"] if (key := " ".join(_words(q.question))) in dev]
    assert shared == []


def test_refusal_kinds_match_answerability_and_game(gold):
    for q in every(gold):
        if q.answerable:
            assert q.refusal is None, q.source
        else:
            assert q.refusal in REFUSALS, q.source
            assert (q.gold_game is not None) == (q.refusal == "not_in_rules"), q.source


def test_minimum_counts_overall(gold):
    questions = every(gold)
    assert len(questions) >= 80
    assert sum(not q.answerable for q in questions) >= 12
    assert sum(q.gold_game is None for q in questions) >= 8  # other games, recipes, weather…
    assert sum(q.game is None for q in questions) >= 12
    assert sum(q.lang == "en" for q in questions) >= 6
    assert 0.3 <= len(gold["dev"]) / len(questions) <= 0.5


@pytest.mark.parametrize("split", SPLITS)
def test_minimum_counts_per_split(gold, split):
    questions = gold[split]
    per_game = Counter(q.gold_game for q in questions if q.answerable)
    assert set(per_game) == {"cubirds", "cubitos", "karuba", "sans-arret"}
    assert min(per_game.values()) >= 8, per_game
    assert sum(not q.answerable for q in questions) >= 5
    assert sum(q.gold_game is None for q in questions) >= 3
    assert sum(not q.answerable and q.gold_game is not None for q in questions) >= 2
    no_game = [q for q in questions if q.game is None]
    assert len(no_game) >= 5
    assert any(not q.answerable for q in no_game)
    assert sum(q.lang == "en" for q in questions) >= 2


# Per split: at least this many questions, this many refusals, and this many of each refusal kind.
TARGETS = {"dev": (155, 42, 14), "test": (105, 27, 8)}


@pytest.mark.parametrize("split", SPLITS)
def test_split_size_and_refusal_targets(gold, split):
    size, refused, per_kind = TARGETS[split]
    questions = gold[split]
    kinds = Counter(q.refusal for q in questions if not q.answerable)
    assert len(questions) >= size
    assert sum(kinds.values()) >= refused
    assert {k: kinds[k] for k in REFUSALS if kinds[k] < per_kind} == {}, kinds


def test_routing_questions_mostly_do_not_name_the_game(gold, corpus):
    names = {_plain(doc.game.title) for doc in corpus[0]}
    names |= {_plain(a) for doc in corpus[0] for a in doc.game.aliases}
    routed = [q for q in every(gold) if q.game is None and q.gold_game is not None]
    naming = [q for q in routed if any(n in _plain(q.question) for n in names)]
    assert 3 <= len(naming) < len(routed) / 2


def test_every_game_is_probed_beyond_its_qa_pairs(gold, corpus):
    passages = corpus[1]
    for game in ("cubitos", "karuba", "sans-arret"):
        beyond = [
            q for q in every(gold)
            if q.gold_game == game and any(q.is_relevant(p.game, p.text) for p in passages if p.section != QA_SECTION)
        ]
        assert len(beyond) >= 5, game
    cubirds_sections = {p.section for p in passages if p.game == "cubirds"
                        for q in every(gold) if q.is_relevant(p.game, p.text)}
    assert len(cubirds_sections) >= 8


def test_card_answers_are_whole_card_lines_and_only_card_questions_cite_the_card(gold, corpus):
    passages = corpus[1]
    for q in every(gold):
        if not q.answerable:
            continue
        cited = [p for p in passages if q.is_relevant(p.game, p.text)]
        if "card" in q.tags:
            lines = {line for p in passages if p.is_card and p.game == q.gold_game for line in p.text.split("\n")}
            assert set(q.gold_spans) <= lines, f"{q.source}: {q.gold_spans} ne sont pas des lignes de la fiche"
            assert all(p.is_card for p in cited) and q.gold_pages == (), q.source
        else:
            assert not any(p.is_card for p in cited), f"{q.source}: cite la fiche sans le tag card"


def test_lowercase_game_questions_are_lowercase(gold):
    tagged = [q for q in every(gold) if "lowercase_game" in q.tags]
    assert tagged and [q.source for q in tagged if q.question != q.question.lower()] == []


def test_follow_ups_come_right_after_a_question_of_their_split(gold):
    for split in SPLITS:
        ids = [q.id for q in gold[split]]
        follow_ups = [q for q in gold[split] if q.previous]
        assert len(follow_ups) >= 4, split
        for q in follow_ups:
            assert ids.index(q.previous) == ids.index(q.id) - 1, f"{q.source}: previous {q.previous!r} n'est pas juste avant"


# The players'-voice set (tag "voice", issue 21), per split: floors on each kind of question it was written to hold.
VOICE_FLOORS = {
    "questions": 55, "answerable with game": 20, "answerable without game": 5, "card": 6, "card refused": 3,
    "not_in_rules": 5, "other_game": 6, "lowercase_game": 4, "off_topic": 5, "everyday_sense": 5, "follow_up": 4,
    "situation": 15, "players_words": 15, "typo": 8,
}


def _voice_counts(questions: list[GoldQuestion]) -> Counter:
    counts = Counter()
    for q in questions:
        counts["questions"] += 1
        for tag in q.tags:
            counts[tag] += 1
        if q.answerable and "card" not in q.tags and "follow_up" not in q.tags:
            counts["answerable with game" if q.game else "answerable without game"] += 1
        if not q.answerable:
            counts["card refused" if "card" in q.tags else q.refusal] += 1
    return counts


@pytest.mark.parametrize("split", SPLITS)
def test_players_voice_set_holds_every_kind_of_question(gold, split):
    voice = [q for q in gold[split] if "voice" in q.tags]
    counts = _voice_counts(voice)
    assert {k: counts[k] for k, floor in VOICE_FLOORS.items() if counts[k] < floor} == {}, counts
    per_game = Counter(q.gold_game for q in voice if q.answerable and "card" not in q.tags)
    assert set(per_game) == {"cubirds", "cubitos", "karuba", "sans-arret"} and min(per_game.values()) >= 5, per_game
    assert set(TAGS) <= set(counts)


def test_relevance_normalizes_apostrophes_and_spaces():
    q = GoldQuestion("x1", "?", None, "cubirds", True, ("l'envolée  est facultative",), (), "fr")
    assert q.is_relevant("cubirds", "Contrairement à la pose, l\u2019envolée est\nfacultative.")
    assert not q.is_relevant("karuba", "l'envolée est facultative")
    off = GoldQuestion("x2", "?", None, None, False, (), (), "fr")
    assert not off.is_relevant(None, "n'importe quoi")


GOOD = {"id": "d001", "question": "Une pépite ça vaut combien ?", "game": "karuba", "gold_game": "karuba",
        "answerable": True, "gold_spans": ["2 points par pépite d'or"], "gold_pages": [6], "lang": "fr"}
REFUSED = {**GOOD, "answerable": False, "refusal": "not_in_rules", "gold_spans": [], "gold_pages": []}
OFF = {**REFUSED, "refusal": "off_topic", "game": None, "gold_game": None}


def _write(tmp_path, *rows, name="dev.jsonl"):
    path = tmp_path / name
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in rows) + "\n",
                    encoding="utf-8")
    return path


def test_good_file_loads_with_split_from_its_name(tmp_path):
    (q,) = load_questions(_write(tmp_path, GOOD))
    assert q.split == "dev" and q.gold_pages == (6,) and q.source.endswith("dev.jsonl:1")
    (q,) = load_questions(_write(tmp_path, GOOD, name="mine.jsonl"))
    assert q.split is None


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        ("{not json", "JSON invalide"),
        ("[1, 2]", "objet JSON"),
        ({**GOOD, "extra": 1}, "clé inconnue : extra"),
        ({k: v for k, v in GOOD.items() if k != "lang"}, "clé manquante : lang"),
        ({**GOOD, "id": "D 1"}, "id invalide"),
        ({**GOOD, "answerable": "yes"}, "answerable"),
        ({**GOOD, "gold_pages": [True]}, "gold_pages"),
        ({**GOOD, "gold_spans": []}, "au moins un gold_span"),
        ({**GOOD, "gold_game": None}, "doit avoir un gold_game"),
        ({**GOOD, "game": "cubitos"}, "diffère de gold_game"),
        ({**GOOD, "answerable": False, "refusal": "not_in_rules"}, "ni gold_spans ni gold_pages"),
        ({**GOOD, "lang": "de"}, "lang"),
        ({**GOOD, "refusal": "not_in_rules"}, "une question avec réponse n'a pas de refusal"),
        ({k: v for k, v in REFUSED.items() if k != "refusal"}, "doit avoir un refusal"),
        ({**REFUSED, "refusal": None}, "doit avoir un refusal"),
        ({**REFUSED, "refusal": "unknown"}, "refusal doit être l'une de : off_topic, other_game, not_in_rules"),
        ({**REFUSED, "refusal": ["off_topic"]}, "refusal doit être l'une de"),
        ({**REFUSED, "game": None, "gold_game": None}, "'not_in_rules' demande un gold_game"),
        ({**REFUSED, "refusal": "off_topic"}, "'off_topic' demande gold_game null"),
        ({**REFUSED, "refusal": "other_game", "game": None}, "'other_game' demande gold_game null"),
        ({**GOOD, "tags": "voice"}, "tags doit être une liste"),
        ({**GOOD, "tags": None}, "tags doit être une liste"),
        ({**GOOD, "tags": ["voice", 3]}, "tags doit être une liste"),
        ({**GOOD, "tags": ["voice", "slang"]}, "tag inconnu : slang (connus : situation, players_words"),
        ({**GOOD, "tags": ["voice", "voice"]}, "tag en double : voice"),
        ({**GOOD, "previous": 12}, "previous doit être l'id"),
        ({**GOOD, "game": None, "previous": "d000"}, "une question avec previous porte le tag follow_up"),
        ({**GOOD, "game": None, "tags": ["follow_up"]}, "le tag follow_up demande previous"),
        ({**GOOD, "tags": ["follow_up"], "previous": "d000"}, "se pose avec game null"),
        ({**GOOD, "game": None, "tags": ["follow_up"], "previous": "d001"}, "previous ne peut pas être la question"),
        ({**GOOD, "tags": ["lowercase_game"]}, "le tag lowercase_game demande refusal 'other_game'"),
        ({**OFF, "refusal": "off_topic", "tags": ["lowercase_game"]}, "demande refusal 'other_game'"),
        ({**REFUSED, "tags": ["everyday_sense"]}, "le tag everyday_sense demande refusal 'off_topic'"),
        ({**OFF, "tags": ["card"]}, "le tag card demande un gold_game"),
        ({**OFF, "refusal": "other_game", "tags": ["card"]}, "le tag card demande"),
    ],
)
def test_bad_line_reports_file_and_line(tmp_path, bad, reason):
    path = _write(tmp_path, {**GOOD, "id": "d000"}, "", bad)  # blank line 2 still counts
    with pytest.raises(GoldSetError) as exc:
        load_questions(path)
    assert str(exc.value).startswith(f"{path}:3: ")
    assert reason in str(exc.value)


@pytest.mark.parametrize("kind", REFUSALS)
def test_each_refusal_kind_loads(tmp_path, kind):
    row = {**(REFUSED if kind == "not_in_rules" else OFF), "refusal": kind, "game": "karuba"}
    (q,) = load_questions(_write(tmp_path, row))
    assert q.refusal == kind and not q.answerable
    assert q.gold_game == ("karuba" if kind == "not_in_rules" else None)


def test_answerable_question_has_no_refusal(tmp_path):
    (q,) = load_questions(_write(tmp_path, GOOD))
    assert q.refusal is None
    (q,) = load_questions(_write(tmp_path, {**GOOD, "refusal": None}))
    assert q.refusal is None


FIRST = {**GOOD, "id": "d010", "tags": ["voice", "situation"]}
FOLLOW = {**GOOD, "id": "d011", "game": None, "question": "et pour un cristal ?", "tags": ["voice", "follow_up"],
          "previous": "d010", "gold_spans": ["1 par cristal ramassés"]}


def test_tags_and_previous_load(tmp_path):
    first, follow = load_questions(_write(tmp_path, FIRST, FOLLOW))
    assert first.tags == ("voice", "situation") and first.previous is None
    assert follow.tags == ("voice", "follow_up") and follow.previous == "d010" and follow.game is None
    (plain,) = load_questions(_write(tmp_path, GOOD))
    assert plain.tags == () and plain.previous is None
    refused = {**FOLLOW, "answerable": False, "refusal": "not_in_rules", "gold_game": "cubirds", "gold_spans": [],
               "gold_pages": []}
    assert load_questions(_write(tmp_path, FIRST, refused))[1].gold_game == "cubirds"  # only answers keep the game


@pytest.mark.parametrize(
    ("rows", "reason"),
    [
        ((FOLLOW, FIRST), "previous 'd010' inconnu : doit être l'id d'une question plus haut dans ce fichier"),
        ((FIRST, {**FOLLOW, "previous": "d999"}), "previous 'd999' inconnu"),
        ((FIRST, {**FOLLOW, "gold_game": "cubirds"}),
         "gold_game 'cubirds' diffère de celui de la question précédente 'd010' ('karuba')"),
    ],
)
def test_bad_previous_reports_the_follow_up_line(tmp_path, rows, reason):
    path = _write(tmp_path, *rows)
    with pytest.raises(GoldSetError) as exc:
        load_questions(path)
    line = 1 if rows[0] is FOLLOW else 2
    assert str(exc.value).startswith(f"{path}:{line}: ") and reason in str(exc.value)


def test_duplicate_id_names_both_lines(tmp_path):
    path = _write(tmp_path, GOOD, GOOD)
    with pytest.raises(GoldSetError, match=r"dev\.jsonl:2: id en double : 'd001' \(déjà ligne 1\)"):
        load_questions(path)


def test_missing_or_empty_file(tmp_path):
    with pytest.raises(GoldSetError, match="lecture impossible"):
        load_questions(tmp_path / "absent.jsonl")
    with pytest.raises(GoldSetError, match="aucune question"):
        load_questions(_write(tmp_path, ""))
