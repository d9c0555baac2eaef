"""Each question's outcome, written down so that two versions of the code can be compared question by question.

`rulesqa eval --outcomes FILE` writes one JSON line per (mode, question): what the answer was (found, the
refusal reason, the game, the quoted passage, the ranked passages, sure, the choices) without its timing.
`python -m eval.outcomes A B` prints every line that differs and exits 1 when one does: a change meant to
keep behaviour (a refactoring) must leave the file identical.
"""

import json
import sys
from pathlib import Path

# What a record holds that says how long, not what: left out of the comparison.
TIMING = ("latency_ms",)


def lines(records_by_mode: dict[str, list[dict]]) -> list[dict]:
    return [{k: v for k, v in r.items() if k not in TIMING} | {"mode": mode}
            for mode, records in records_by_mode.items() for r in records]


def write(records_by_mode: dict[str, list[dict]], path: Path) -> Path:
    path = Path(path)
    path.write_text("".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n"
                            for r in lines(records_by_mode)), "utf-8")
    return path


def read(path: Path) -> dict[tuple[str, str], dict]:
    out = {}
    for raw in Path(path).read_text("utf-8").splitlines():
        if raw.strip():
            record = json.loads(raw)
            out[(record["mode"], record["id"])] = record
    return out


def diff(before: dict[tuple[str, str], dict], after: dict[tuple[str, str], dict]) -> list[str]:
    """One line per question whose outcome differs, naming the fields that moved."""
    out = []
    for key in sorted(before.keys() | after.keys()):
        a, b = before.get(key), after.get(key)
        if a is None or b is None:
            out.append(f"{key[0]} {key[1]}: {'absent avant' if a is None else 'absent après'}")
            continue
        moved = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
        if moved:
            out.append(f"{key[0]} {key[1]}: " + "; ".join(f"{k} {a.get(k)!r} -> {b.get(k)!r}" for k in moved))
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage : python -m eval.outcomes AVANT.jsonl APRES.jsonl", file=sys.stderr)
        return 2
    before, after = read(argv[0]), read(argv[1])
    changes = diff(before, after)
    for line in changes:
        print(line)
    print(f"{len(changes)} question(s) changée(s) sur {len(after)}", file=sys.stderr)
    return 1 if changes else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
