"""`rulesqa index` in a child process with the model replaced by fakes, for the tests of builds in another
process: the server's child build, concurrent builds, and builds killed with SIGKILL at a chosen point.

    CHILD_PAUSE=POINT CHILD_MARKER=FILE python -m tests.child_build [rulesqa index options]

The settings come from the environment (RULESQA_INDEX_DIR, RULESQA_CORPUS_DIR, RULESQA_MODELS_DIR,
RULESQA_ADAPT), as for the real command. Everything of the real build runs (the CLI command, the index's and
the model cache's locks, the removal of leftovers, the base model's `folder_replaced`, the adaptation's
scratch folders, `store.save`), except that the base model is a dummy folder, the fine-tune and the float32
twin are skipped, and passages are encoded by FakeEmbedder. With CHILD_PAUSE, the build writes
CHILD_MARKER and sleeps when it reaches POINT, to be killed there:

- `model`: inside the base model's temporary folder, half written;
- `float32`: in an adaptation, the adapted folder's temporary folder and the float32 scratch both exist;
- `save`: inside the index's temporary folder, half written;
- `swap`: the new index in place, the old version not yet removed (its temporary folder).
"""

import os
import sys
import time
from pathlib import Path

from tests.fakes import FakeFolderEmbedder, write_fake_model

POINT = os.environ.get("CHILD_PAUSE")


def pause_at(point: str) -> None:
    if point == POINT:
        Path(os.environ["CHILD_MARKER"]).write_text(str(os.getpid()))
        while True:
            time.sleep(1)


def install_fakes() -> None:
    import indexer.model_for_index as adaptation
    import indexer.atomic as atomic
    import indexer.models.e5.finetune as adapt
    import indexer.models.e5.folder as folder
    import indexer.store as store

    def write_lean_folder(tmp, source):
        (tmp / "half-written").write_text("")
        pause_at("model")
        write_fake_model(tmp, folder.MODEL_NAME, "base")
        folder.write_description(tmp, folder.description("fake"), fingerprint="base")

    def float32_twin(base_dir, target):
        # As the real one: the model cache's twin, written whole and renamed into place, kept once there.
        if not target.is_dir():
            with atomic.folder_replaced(target) as tmp:
                (tmp / "model.safetensors").write_text("")
                pause_at("float32")
        return target

    def train(float32_dir, pairs, **kwargs):
        return {"steps": 0, "train_loss": 0.0}, {}

    def write_lean(base_dir, state, tmp):
        write_fake_model(tmp, "unused", "unused")

    save_tokens, discard = store._save_tokens, atomic._discard

    def save_tokens_then_pause(path, tokens):
        save_tokens(path, tokens)
        pause_at("save")

    def discard_after_pause(old):
        pause_at("swap")
        discard(old)

    folder._write_lean_folder = write_lean_folder
    folder._is_complete = lambda target, sha: bool(folder.read_model_manifest(target))
    adapt.build_float32_folder = float32_twin
    adapt._train = train
    adapt._write_lean = write_lean
    adaptation.load_embedder = lambda name, models_dir, threads, **_: FakeFolderEmbedder(
        folder.ensure_model(models_dir / folder.MODEL_NAME))
    adaptation.load_folder_embedder = lambda path, threads, model_id=None: FakeFolderEmbedder(path, model_id)
    store._save_tokens = save_tokens_then_pause
    atomic._discard = discard_after_pause


if __name__ == "__main__":
    install_fakes()
    from rulesqa.cli import app

    app(["index", "--quiet", *sys.argv[1:]])
