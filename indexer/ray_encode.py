"""Encoding an index's passages on a Ray cluster (`rulesqa index --ray ADDRESS`).

The corpus is parsed once, here; only the passage texts travel. Ray Data cuts them into the same fixed
batches as a local build (build.chunks) and `map_batches` sends them to a pool of actors, each loading
the model once: the model folder itself goes through the object store, so a node needs nothing but
rulesqa installed. On a node with a GPU an actor asks onnxruntime for its CUDA provider (when
onnxruntime-gpu is installed there). The vectors come back by row number and are put in row order, so
`store.save` writes the same folder as a local build; the same batches give the same vectors.

Ray is an optional extra (`pip install -e '.[cluster]'`): it is imported only here, when asked for.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from indexer.build import BATCH, chunks
from indexer.errors import ClusterError

INSTALL_HINT = "pip install -e '.[cluster]'"
NAMESPACE = "rulesqa"


def import_ray():
    try:
        import ray
    except ImportError:
        raise ClusterError(f"Ray n'est pas installé : {INSTALL_HINT}") from None
    return ray


def connect(address: str, env: dict[str, str] | None = None):
    """Join the Ray cluster at `address` (host:port of its head) as a driver; returns the ray module."""
    import logging
    import os

    # The driver's own Ray chatter (core worker notes, Ray Data's execution lines) stays out of the
    # command's output; failures still arrive as exceptions.
    os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "fatal")
    # No usage statistics: nothing is sent anywhere, and Ray Data's poller would log at exit.
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    os.environ.setdefault("RAY_DATA_USAGE_DISABLED", "1")
    ray = import_ray()
    for name in ("ray", "ray.data", "ray.serve"):
        logging.getLogger(name).setLevel(logging.ERROR)
    if ray.is_initialized():
        return ray
    _reachable(address)
    runtime_env = {"env_vars": env} if env else None
    # A cluster on loopback (nodes started with --node-ip-address 127.0.0.2, say): this driver joins it there,
    # where Ray would otherwise take the machine's network address.
    host = address.split("://")[-1].rsplit(":", 1)[0]
    local = {"_node_ip_address": host} if host.startswith("127.") else {}
    try:
        ray.init(address=address, namespace=NAMESPACE, log_to_driver=False, runtime_env=runtime_env,
                 logging_level="WARNING", **local)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise ClusterError(f"grappe Ray injoignable à {address} ({str(exc).splitlines()[0]})") from None
    return ray


def _reachable(address: str, timeout: float = 5.0) -> None:
    """Fail at once on a head that does not listen (ray.init would retry for minutes)."""
    import socket

    if address == "auto" or "://" in address:
        return
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            pass
    except (OSError, ValueError) as exc:
        raise ClusterError(f"grappe Ray injoignable à {address} ({exc})") from None


class ModelFiles:
    """A model folder carried to the cluster's nodes: its files' bytes (in the object store), written once
    per node into a temporary folder named by the model's fingerprint."""

    def __init__(self, folder: Path, model_id: str, fingerprint: str, backend: str):
        self.model_id, self.fingerprint, self.backend = model_id, fingerprint, backend
        folder = Path(folder)
        self.files = {f.relative_to(folder).as_posix(): f.read_bytes()
                      for f in sorted(folder.rglob("*")) if f.is_file()}

    def materialise(self) -> Path:
        from indexer.atomic import folder_replaced

        target = Path(tempfile.gettempdir()) / "rulesqa-models" / self.fingerprint[:32]
        if not (target / ".complete").is_file():
            with folder_replaced(target) as tmp:
                for name, data in self.files.items():
                    (tmp / name).parent.mkdir(parents=True, exist_ok=True)
                    (tmp / name).write_bytes(data)
                (tmp / ".complete").write_text(self.fingerprint)
        return target

    def load(self, threads: int, gpu: bool):
        from indexer.models.embedders import OnnxEmbedder, TorchEmbedder

        path = self.materialise()
        if self.backend == "onnx":
            embedder = OnnxEmbedder(path, threads, model_id=self.model_id, providers=_providers(gpu))
        else:
            embedder = TorchEmbedder(str(path), threads, model_id=self.model_id, path=path)
        if embedder.fingerprint() != self.fingerprint:
            raise ClusterError(f"le modèle chargé sur le nœud diffère ({embedder.fingerprint()[:12]} au lieu de "
                               f"{self.fingerprint[:12]})")
        return embedder


def _providers(gpu: bool) -> list[str]:
    if gpu:
        import onnxruntime

        if "CUDAExecutionProvider" in onnxruntime.get_available_providers():
            return ["CUDAExecutionProvider", "CPUExecutionProvider"]
    return ["CPUExecutionProvider"]


def shippable(embedder):
    """What the actors rebuild the embedder from: a model folder's files, or the embedder itself when it
    has no folder (the tests' fakes, which pickle)."""
    path = getattr(embedder, "path", None)
    if path is not None:
        return ModelFiles(path, embedder.model_id, embedder.fingerprint(), embedder.backend)
    if getattr(embedder, "backend", "") == "torch":
        raise ClusterError(f"le modèle {embedder.model_id!r} n'a pas de dossier local à envoyer à la grappe")
    return embedder


class EncodeActor:
    """One model per actor, loaded once; encodes whole fixed batches (their row numbers come back)."""

    def __init__(self, model_ref: list, threads: int):
        import ray

        model = ray.get(model_ref[0])
        gpu = bool(ray.get_gpu_ids())
        self.embedder = model.load(threads, gpu) if isinstance(model, ModelFiles) else model
        self.dim = self.embedder.dim

    def __call__(self, batch: dict) -> dict:
        rows, vectors = [], []
        for start, texts in zip(batch["start"], batch["texts"]):
            texts = [str(t) for t in texts]
            vectors.append(self.embedder.encode_passages(texts))
            rows.append(np.arange(int(start), int(start) + len(texts), dtype=np.int64))
        return {"row": np.concatenate(rows), "vector": np.concatenate(vectors).astype(np.float32)}


class RayEncoder:
    """A build.PassageEncoder running on the cluster joined by `connect`: `actors` model copies (default:
    one per CPU of the cluster, or one per GPU when it has GPUs), each with `threads` inference threads."""

    def __init__(self, embedder, actors: int | None = None, threads: int = 1, batch: int = BATCH):
        self.embedder, self.threads, self.batch, self.actors = embedder, threads, batch, actors

    def __call__(self, texts: list[str], progress: Callable[[int], None]) -> np.ndarray:
        ray = import_ray()
        if not ray.is_initialized():
            raise ClusterError("pas de grappe Ray jointe (indexer.ray_encode.connect)")
        import ray.data

        context = ray.data.DataContext.get_current()
        context.enable_progress_bars = False  # the build's own bar counts the passages
        context.print_on_execution_start = False
        resources = ray.cluster_resources()
        gpus = int(resources.get("GPU", 0))
        pool = self.actors or (gpus or max(1, int(resources.get("CPU", 1)) // self.threads))
        parts = chunks(len(texts), self.batch)
        pool = max(1, min(pool, len(parts)))
        model_ref = [ray.put(shippable(self.embedder))]
        items = [{"start": c.start, "texts": texts[c.start : c.stop]} for c in parts]
        dataset = ray.data.from_items(items, override_num_blocks=min(len(items), pool * 4))
        encoded = dataset.map_batches(
            EncodeActor, fn_constructor_kwargs={"model_ref": model_ref, "threads": self.threads},
            batch_size=1, batch_format="numpy", compute=ray.data.ActorPoolStrategy(size=pool),
            num_cpus=0 if gpus else self.threads, num_gpus=1 if gpus else 0)
        vectors = np.zeros((len(texts), self.embedder.dim), dtype=np.float32)
        seen = np.zeros(len(texts), dtype=bool)
        try:
            for out in encoded.iter_batches(batch_size=None, batch_format="numpy"):
                vectors[out["row"]] = out["vector"]
                seen[out["row"]] = True
                progress(len(out["row"]))
        except ray.exceptions.RayError as exc:
            raise ClusterError(f"l'encodage sur la grappe a échoué : {str(exc).splitlines()[0]}") from None
        if not seen.all():
            raise ClusterError(f"{int((~seen).sum())} passages non encodés par la grappe")
        return vectors

