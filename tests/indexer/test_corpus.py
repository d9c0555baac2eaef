"""The corpus parser on tiny files: structure, pages, and each kind of bad input."""

from pathlib import Path

import pytest

from indexer.corpus import read_corpus, read_game
from indexer.errors import CorpusError
from indexer.passages import load_passages, passages_of

GOOD = """\
---
id: petit-jeu
title: Petit Jeu
aliases: Small Game, PJ
year: 2020
players: 2 à 4
---

Un jeu pour tester.

# Les règles en questions

Q: Combien de cartes ?
Cinq cartes chacun. (p. 3)
Puis on pioche. (p. 4-5)

# Comment on gagne

- **Le plus riche** Celui qui a le plus d'or gagne. (p. 8, 9)
- Sans titre ni page.

## Fin de manche

La manche s'arrête.
Une liste suit :
- premier point
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_header_metadata(tmp_path):
    game = read_game(write(tmp_path, "g.md", GOOD)).game
    assert (game.id, game.title, game.year, game.players) == ("petit-jeu", "Petit Jeu", 2020, "2 à 4")
    assert game.aliases == ("Small Game", "PJ")
    assert game.author is None


def test_passages_units_sections_and_pages(tmp_path):
    items = passages_of(read_game(write(tmp_path, "g.md", GOOD)))
    summary = [(p.section, p.title, p.pages, p.text) for p in items]
    assert summary == [
        ("Fiche du jeu", None, (), "Joueurs : 2 à 4\nAnnée : 2020"),  # the card: the header's fields, in card order
        (None, None, (), "Un jeu pour tester."),
        ("Les règles en questions", "Combien de cartes ?", (3, 4, 5),
         "Combien de cartes ?\nCinq cartes chacun.\nPuis on pioche."),
        ("Comment on gagne", "Le plus riche", (8, 9), "Le plus riche\nCelui qui a le plus d'or gagne."),
        ("Comment on gagne", None, (), "Sans titre ni page."),
        ("Fin de manche", None, (), "La manche s'arrête."),
        ("Fin de manche", None, (), "Une liste suit :\n- premier point"),
    ]
    assert items[0].is_card and not any(p.is_card for p in items[1:])
    assert items[2].line == 13


def test_ids_are_stable_and_unique(tmp_path):
    first = passages_of(read_game(write(tmp_path, "a.md", GOOD)))
    again = passages_of(read_game(write(tmp_path, "b.md", GOOD)))
    assert [p.id for p in first] == [p.id for p in again]
    assert len({p.id for p in first}) == len(first)
    assert all(p.id.startswith("petit-jeu-") for p in first)


def test_edited_text_changes_only_its_own_id(tmp_path):
    before = passages_of(read_game(write(tmp_path, "a.md", GOOD)))
    after = passages_of(read_game(write(tmp_path, "a.md", GOOD.replace("Cinq cartes", "Six cartes"))))
    changed = [a.id != b.id for a, b in zip(before, after)]
    assert changed == [False, False, True, False, False, False, False]


def test_a_header_without_card_fields_gives_no_card(tmp_path):
    items = passages_of(read_game(write(tmp_path, "jeu.md", header("year: 2001\n").replace("year: 2001\n", ""))))
    assert [p.text for p in items] == ["Une règle."]


def test_card_follows_the_header_and_changes_with_it(tmp_path):
    before = passages_of(read_game(write(tmp_path, "a.md", GOOD)))
    after = passages_of(read_game(write(tmp_path, "a.md", GOOD.replace("players: 2 à 4", "players: 2 à 6"))))
    assert after[0].text == "Joueurs : 2 à 6\nAnnée : 2020" and after[0].id != before[0].id
    assert [p.id for p in after[1:]] == [p.id for p in before[1:]]


def test_lexique_header(tmp_path):
    text = header("lexique: bonze: pion neutre, grimpeur ; voie: colonne\n")
    game = read_game(write(tmp_path, "jeu.md", text)).game
    assert game.lexicon == (("bonze", ("pion neutre", "grimpeur")), ("voie", ("colonne",)))


@pytest.mark.parametrize("value", ["bonze", "bonze:", ": grimpeur", "bonze: ,"])
def test_unreadable_lexique_is_a_file_line_error(tmp_path, value):
    with pytest.raises(CorpusError, match=r"jeu.md:4: lexique illisible"):
        read_game(write(tmp_path, "jeu.md", header(f"lexique: {value}\n")))


def test_header_of_an_imported_pdf(tmp_path):
    game = read_game(write(tmp_path, "jeu.md", header("source: jeu.pdf\npages: labels\nocr: tesseract\n"))).game
    assert (game.source, game.pages, game.ocr) == ("jeu.pdf", "labels", "tesseract")


def header(extra: str = "") -> str:
    return f"---\nid: jeu\ntitle: Jeu\n{extra}---\n\n# Règles\n\nUne règle.\n"


@pytest.mark.parametrize(
    "text, line, fragment",
    [
        ("", 1, "fichier vide"),
        ("   \n\n", 1, "fichier vide"),
        ("id: jeu\n", 1, "commencer par une ligne « --- »"),
        ("---\nid: jeu\ntitle: Jeu\n", 1, "non fermé"),
        ("---\nid: jeu\ntitle: Jeu\n\nUne règle.\n", 5, "illisible"),
        (header("ceci n'est pas une clé\n"), 4, "illisible"),
        (header("autor: Moi\n"), 4, "clé inconnue « autor »"),
        (header("title: Encore\n"), 4, "répétée"),
        (header("year: deux mille\n"), 4, "année"),
        ("---\nid: Mon Jeu\ntitle: Jeu\n---\nx\n", 2, "id « Mon Jeu » invalide"),
        ("---\ntitle: Jeu\n---\nx\n", 1, "« id » manquante"),
        ("---\nid: jeu\ntitle: Jeu\n---\n\n", 5, "aucun texte"),
        (header().replace("Une règle.", "Une règle. (p 12)"), 8, "référence de page mal formée"),
        (header().replace("Une règle.", "Une règle. (p. 9-2)"), 8, "plage de pages invalide"),
        (header().replace("Une règle.", "Q: Une question ?"), 8, "question sans réponse"),
        (header("source: ../livret.pdf\n"), 4, "source « ../livret.pdf » invalide"),
        (header("source: livret.txt\n"), 4, "source « livret.txt » invalide"),
        (header("pages: imprimées\n"), 4, "pages « imprimées » invalide"),
    ],
)
def test_bad_input_is_reported_with_file_and_line(tmp_path, text, line, fragment):
    path = write(tmp_path, "jeu.md", text)
    with pytest.raises(CorpusError) as caught:
        read_game(path)
    assert str(caught.value).startswith(f"{path}:{line}: ")
    assert fragment in str(caught.value)


def test_unreadable_bytes(tmp_path):
    path = tmp_path / "jeu.md"
    path.write_bytes(b"---\nid: jeu\ntitle: \xff\xfe\n---\n")
    with pytest.raises(CorpusError, match=r"jeu\.md:1: .*UTF-8"):
        read_game(path)


def test_duplicate_game_id_across_files(tmp_path):
    write(tmp_path, "a.md", header())
    second = write(tmp_path, "b.md", "\n" + header())
    with pytest.raises(CorpusError) as caught:
        read_corpus(tmp_path)
    assert str(caught.value).startswith(f"{second}:3: id « jeu » déjà utilisé")


def test_readme_is_not_a_game_and_empty_folder_is_an_error(tmp_path):
    write(tmp_path, "README.md", "# Not a game\n")
    with pytest.raises(CorpusError, match="aucun fichier de jeu"):
        load_passages(tmp_path)
    write(tmp_path, "jeu.md", header())
    docs, items = load_passages(tmp_path)
    assert [d.game.id for d in docs] == ["jeu"] and len(items) == 1


TABLE = """\
---
id: petit-jeu
title: Petit Jeu
---
# Décompte

| Figure | Condition | Points |
|---|:---:|--:|
| Brelan | trois dés identiques | 3 | (p. 7)
| Suite |  | 5 | (p. 7-8)
| Carré | quatre dés | 8 |
"""


def test_a_table_row_is_one_passage_with_every_cell_after_its_header(tmp_path):
    passages = passages_of(read_game(write(tmp_path, "g.md", TABLE)))
    assert [(p.section, p.text, p.pages) for p in passages] == [
        ("Décompte", "Figure : Brelan ; Condition : trois dés identiques ; Points : 3", (7,)),
        ("Décompte", "Figure : Suite ; Points : 5", (7, 8)),  # an empty cell is left out
        ("Décompte", "Figure : Carré ; Condition : quatre dés ; Points : 8", ()),
    ]


@pytest.mark.parametrize("table,line,fragment", [
    ("| A | B |\n| x | y |\n", 6, "tableau illisible"),  # no rule line under the header
    ("| A | B |\n|---|---|\n| x | y | z |\n", 8, "3 cellules dans un tableau de 2"),
    ("| A | B |\n|---|---|\n| x | y\n", 8, "rangée de tableau illisible"),
])
def test_a_malformed_table_is_a_file_line_error(tmp_path, table, line, fragment):
    text = "---\nid: g\ntitle: G\n---\n\n" + table
    with pytest.raises(CorpusError) as error:
        read_game(write(tmp_path, "g.md", text))
    assert f"g.md:{line}:" in str(error.value) and fragment in str(error.value)
