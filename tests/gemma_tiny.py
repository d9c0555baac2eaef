"""A tiny random EmbeddingGemma made in the test: what the real folder is, at a few thousand weights.

A sentence-transformers folder of the real one's five modules: Transformer(Gemma3TextModel, bidirectional, 3
layers of both types, 2 query heads sharing 1 key/value head, a sliding window small enough to bite on a dozen
tokens, random non-zero norm weights: a zero weight would hide the 1 + w) -> Pooling(mean) -> Dense -> Dense (no
bias, identity) -> Normalize, with a word-level tokenizer.json wrapping a text in <bos> … <eos>: the words are
"w3" … "w299".
"""

from __future__ import annotations

from pathlib import Path

HIDDEN, HEADS, HEAD_DIM, FFN, VOCAB, LAYERS = 64, 2, 32, 96, 300, 3
DENSE = 192


def write_tiny_gemma(root: Path, seed: int = 0) -> Path:
    """The sentence-transformers folder at root/st (built from root/hf), returned."""
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Dense, Normalize, Pooling, Transformer
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import Gemma3TextConfig, Gemma3TextModel, PreTrainedTokenizerFast

    torch.manual_seed(seed)
    config = Gemma3TextConfig(
        vocab_size=VOCAB, hidden_size=HIDDEN, intermediate_size=FFN, num_hidden_layers=LAYERS,
        num_attention_heads=HEADS, num_key_value_heads=1, head_dim=HEAD_DIM, sliding_window=4,
        layer_types=["sliding_attention", "full_attention", "sliding_attention"], use_bidirectional_attention=True,
        query_pre_attn_scalar=24,  # a scaling that is no power of two
        max_position_embeddings=64, pad_token_id=0, eos_token_id=1, bos_token_id=2)
    model = Gemma3TextModel(config)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name:
                p.normal_(0.0, 0.3)
    vocab = {"<pad>": 0, "<eos>": 1, "<bos>": 2, **{f"w{i}": i for i in range(3, VOCAB)}}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="w3"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.post_processor = processors.TemplateProcessing(single="<bos> $A <eos>", special_tokens=[("<bos>", 2),
                                                                                                ("<eos>", 1)])
    root = Path(root)
    model.save_pretrained(root / "hf")
    PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", eos_token="<eos>",
                            bos_token="<bos>").save_pretrained(root / "hf")
    identity = torch.nn.Identity()
    st = SentenceTransformer(modules=[
        Transformer(str(root / "hf")), Pooling(HIDDEN, "mean"),
        Dense(HIDDEN, DENSE, bias=False, activation_function=identity),
        Dense(DENSE, HIDDEN, bias=False, activation_function=identity), Normalize()], device="cpu")
    st.save(str(root / "st"))
    return root / "st"
