"""`rulesqa index --game ID` and `rulesqa index --remove ID`: one game of the existing index."""

import typer


def update_one(conf, game: str | None, remove: str | None, run, fail, encoder=None) -> None:
    """`encoder`: embedder -> the encoder of the game's passages (a Ray cluster's), or None: here."""
    from indexer.locks import index_locked
    from indexer.update_game import update_game

    if game and remove:
        fail("--game et --remove s'excluent : un seul jeu à la fois")
    with index_locked(conf.index_dir):
        # The model inside the index: the other games' vectors stay valid, and nothing is adapted again.
        embedder = run(conf.index_embedder)
        encode = encoder(embedder) if encoder else None
        result = run(lambda: update_game(conf.index_dir, embedder, game or remove, conf.corpus_dir,
                                         remove=bool(remove), encode=encode))
    what = "retiré" if remove else f"{result.added} passages ({result.encoded} encodés)"
    typer.echo(f"{result.game} : {what} ; l'index compte {result.manifest.corpus.games} jeux, "
               f"{result.manifest.corpus.passages} passages ; {result.seconds} s", err=True)
    typer.echo(str(conf.index_dir))
