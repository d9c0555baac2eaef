"""What EmbeddingGemma's graph needs to know of a sentence-transformers folder (Gemma3TextModel -> mean Pooling ->
Dense -> Dense -> Normalize), read and checked: anything the graph would not reproduce exactly is refused in one
French line (ModelError)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from indexer.errors import ModelError

MODEL_FILE = "model.safetensors"
LAYER_TYPES = ("sliding_attention", "full_attention")


@dataclass(frozen=True)
class GemmaSpec:
    """What the graph needs to know of a folder, checked."""

    hidden: int
    heads: int
    head_dim: int
    intermediate: int
    vocab: int
    layer_types: tuple[str, ...]
    eps: float
    window: int  # a sliding layer's query i attends key j iff |i - j| < window
    rope_theta: dict[str, float]  # per layer type
    scaling: float
    max_positions: int
    prefix: str  # of the transformer's safetensors keys ("" or "model.")
    dense: tuple[Path, ...]  # Dense module folders, in order


def _fail(source: Path, reason: str) -> ModelError:
    return ModelError(f"{source} : {reason}")


def _read_json(source: Path, rel: str) -> dict | list:
    path = source / rel
    if not path.is_file():
        raise _fail(source, f"fichier manquant : {rel}")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise _fail(source, f"{rel} illisible ({e})") from None


def _modules(source: Path) -> tuple[Path, tuple[Path, ...]]:
    """The Pooling folder and the Dense folders of modules.json: Transformer, Pooling, Dense…, Normalize."""
    modules = _read_json(source, "modules.json")
    kinds = [str(m.get("type", "")).rsplit(".", 1)[-1] for m in modules]
    dense = kinds[2:-1]
    if kinds[:2] != ["Transformer", "Pooling"] or kinds[-1:] != ["Normalize"] or any(k != "Dense" for k in dense):
        raise _fail(source, f"modules sentence-transformers inattendus : {' -> '.join(kinds)} "
                            "(attendu Transformer -> Pooling -> Dense… -> Normalize)")
    paths = [source / m.get("path", "") for m in modules]
    return paths[1], tuple(paths[2:-1])


def _check_pooling(source: Path, pooling: Path) -> None:
    cfg = _read_json(source, str(pooling.relative_to(source) / "config.json"))
    # sentence-transformers 6 writes "pooling_mode": "mean"; earlier versions one boolean per mode.
    modes = {cfg["pooling_mode"]} if "pooling_mode" in cfg else {
        k.removeprefix("pooling_mode_") for k, v in cfg.items() if k.startswith("pooling_mode_") and v}
    if modes not in ({"mean"}, {"mean_tokens"}) or not cfg.get("include_prompt", True):
        raise _fail(source, "seul le pooling moyen sur tous les jetons (include_prompt) est pris en charge")


def _check_dense(source: Path, folder: Path) -> None:
    rel = folder.relative_to(source)
    cfg = _read_json(source, str(rel / "config.json"))
    if not str(cfg.get("activation_function", "")).endswith("Identity"):
        raise _fail(source, f"{rel} : activation {cfg.get('activation_function')!r} non prise en charge (Identity)")
    if not (folder / MODEL_FILE).is_file():
        raise _fail(source, f"fichier manquant : {rel / MODEL_FILE}")


def _rope_theta(source: Path, cfg: dict) -> dict[str, float]:
    """Each layer type's RoPE base: transformers 5 writes `rope_parameters`, older configs `rope_theta` (full
    layers) and `rope_local_base_freq` (sliding layers)."""
    params = cfg.get("rope_parameters") or {}
    if cfg.get("rope_scaling") or any(p.get("rope_type", "default") != "default" for p in params.values()):
        raise _fail(source, "seul le RoPE par défaut (sans rope_scaling) est pris en charge")
    return {"full_attention": float(params.get("full_attention", {}).get("rope_theta", cfg.get("rope_theta", 1e6))),
            "sliding_attention": float(params.get("sliding_attention", {}).get(
                "rope_theta", cfg.get("rope_local_base_freq", 1e4)))}


def _check_config(source: Path, cfg: dict) -> None:
    if cfg.get("model_type") != "gemma3_text":
        raise _fail(source, f"pas un modèle Gemma3 (model_type {cfg.get('model_type')!r}, attendu 'gemma3_text')")
    unsupported = []
    if not cfg.get("use_bidirectional_attention"):
        unsupported.append("attention causale (use_bidirectional_attention absent)")
    if cfg.get("hidden_activation", cfg.get("hidden_act")) != "gelu_pytorch_tanh":
        unsupported.append(f"activation {cfg.get('hidden_activation')!r}")
    if cfg.get("attn_logit_softcapping") is not None or cfg.get("attention_bias"):
        unsupported.append("softcapping ou biais d'attention")
    if cfg.get("num_key_value_heads") != 1:
        unsupported.append(f"{cfg.get('num_key_value_heads')} têtes clé/valeur (1 attendue)")
    if unsupported:
        raise _fail(source, "configuration Gemma3 non prise en charge : " + ", ".join(unsupported))


def _key_prefix(source: Path) -> str:
    from safetensors import safe_open

    try:
        with safe_open(source / MODEL_FILE, "numpy") as st:
            keys = set(st.keys())
    except Exception as e:  # safetensors raises its own error types for a corrupt header
        raise _fail(source, f"{MODEL_FILE} illisible ({e})") from None
    for prefix in ("", "model."):
        if prefix + "embed_tokens.weight" in keys:
            return prefix
    raise _fail(source, f"{MODEL_FILE} sans embed_tokens.weight : pas les poids d'un Gemma3TextModel")


def read_spec(source: Path) -> GemmaSpec:
    """The checked description of a sentence-transformers EmbeddingGemma folder; ModelError (one French line)
    for anything the graph would not reproduce exactly."""
    source = Path(source)
    if not source.is_dir():
        raise ModelError(f"{source} : dossier de modèle introuvable")
    cfg = _read_json(source, "config.json")
    _check_config(source, cfg)
    pooling, dense = _modules(source)
    _check_pooling(source, pooling)
    for folder in dense:
        _check_dense(source, folder)
    if not (source / MODEL_FILE).is_file():
        raise _fail(source, f"fichier manquant : {MODEL_FILE}")
    hidden, heads = int(cfg["hidden_size"]), int(cfg["num_attention_heads"])
    head_dim = int(cfg.get("head_dim") or hidden // heads)
    layers = int(cfg["num_hidden_layers"])
    pattern = int(cfg.get("sliding_window_pattern", cfg.get("_sliding_window_pattern", 6)))
    types = tuple(cfg.get("layer_types") or ["sliding_attention" if (i + 1) % pattern else "full_attention"
                                             for i in range(layers)])
    if len(types) != layers or set(types) - set(LAYER_TYPES):
        raise _fail(source, f"layer_types inattendus : {types}")
    st_cfg = (source / "sentence_bert_config.json")
    max_seq = json.loads(st_cfg.read_text()).get("max_seq_length") if st_cfg.is_file() else None
    max_pos = int(cfg.get("max_position_embeddings", 2048))
    return GemmaSpec(
        hidden=hidden, heads=heads, head_dim=head_dim, intermediate=int(cfg["intermediate_size"]),
        vocab=int(cfg["vocab_size"]), layer_types=types, eps=float(cfg.get("rms_norm_eps", 1e-6)),
        # transformers' Gemma3TextConfig turns the stored window into an exclusive bound on |i - j| for
        # bidirectional attention: sliding_window // 2 + 1 (512 -> 257, so each token sees 256 on either side).
        window=int(cfg.get("sliding_window") or 4096) // 2 + 1, rope_theta=_rope_theta(source, cfg),
        scaling=float(cfg.get("query_pre_attn_scalar", head_dim)) ** -0.5,
        max_positions=min(max_pos, int(max_seq)) if max_seq else max_pos,
        prefix=_key_prefix(source), dense=dense)
