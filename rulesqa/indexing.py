"""What `rulesqa index` runs, from the settings to the index folder, under the folder's lock: the whole corpus
(one folder, or K folders of whole games with their catalogue), or one game of the existing index added, replaced
or removed; encoded here, or on a Ray cluster when the settings name one."""

from rulesqa.errors import UsageError


def build_whole(conf, shards: int | None, progress: bool):
    """The corpus indexed with the model the settings choose (adapted when asked), built with the index."""
    from indexer.build import build_index
    from indexer.locks import index_locked

    encoder = _cluster_encoder(conf)
    with index_locked(conf.index_dir):  # the model and the index it goes into, as one build
        embedder = conf.corpus_embedder(progress=progress)
        encode = encoder(embedder) if encoder else None
        if shards:
            from indexer.shelf import build_shards

            return build_shards(conf.corpus_dir, conf.index_dir, embedder, shards, progress, encode)
        return build_index(conf.corpus_dir, conf.index_dir, embedder, progress, encode)


def update_one_game(conf, game: str | None, remove: str | None):
    """`game` added or replaced, or `remove` removed, with the model inside the index."""
    from indexer.locks import index_locked
    from indexer.update_game import update_game

    encoder = _cluster_encoder(conf)
    if game and remove:
        raise UsageError("--game et --remove s'excluent : un seul jeu à la fois")
    with index_locked(conf.index_dir):
        # The model inside the index: the other games' vectors stay valid, and nothing is adapted again.
        embedder = conf.index_embedder()
        encode = encoder(embedder) if encoder else None
        return update_game(conf.index_dir, embedder, game or remove, conf.corpus_dir, remove=bool(remove),
                           encode=encode)


def _cluster_encoder(conf):
    """With a Ray address: joins the cluster now (a wrong address fails before any work) and returns
    embedder -> the encoder that encodes on it; None without one."""
    if not conf.ray_address:
        return None
    from indexer.ray_encode import RayEncoder, connect

    connect(conf.ray_address)
    return RayEncoder
