"""fixToken repair of plain spm models (issue #9 item 2), measured on held-out Telugu and Nepali.

    python bench/bench_repair.py    # under a minute on 2 cores

Trains stock 8000-piece Unigram and BPE models with byte fallback (spm's other options at their
defaults) on te.train.txt and on the first 20,000 lines of ne.train.txt, and prints for held-out
text (the last 3,000 lines of te.extra.txt, other-domain Telugu ending in news; ne.train.txt
lines 20,000–22,999) the tokens, fertility (tokens per whitespace word) and orphan-mark tokens
(counted, and per 1000 tokens) of:

* ``plain`` — the model's own ids;
* ``id repair`` — those ids through :class:`brahmic_pua.evaluation.repair.IdRepair` (clusters the
  vocabulary cannot spell go to byte pieces), and ``id repair, no bytes`` (such a span keeps
  its original ids);
* ``vocab repair`` — stock spm on the model from
:func:`brahmic_pua.evaluation.repair.repair_vocabulary`
  (every mark-start piece UNUSED, lone marks too: bytes spell them), and ``…, lone marks kept``.

Every repaired row is checked to decode to the plain row's text.
"""

from __future__ import annotations

import io

import sentencepiece as stock

from brahmic_pua.evaluation.repair import IdRepair, Measure, measure, repair_vocabulary
from brahmic_pua.io.lines import file_lines

from common import CORPORA, timed

VOCAB = 8000
HELD_OUT = 3000
NE_TRAIN = 20000


def lines(name: str) -> list[str]:
    return list(file_lines(CORPORA / name))


def train_plain(texts: list[str], model_type: str) -> bytes:
    out = io.BytesIO()
    stock.SentencePieceTrainer.train(
        sentence_iterator=iter(texts),
        model_writer=out,
        vocab_size=VOCAB,
        model_type=model_type,
        byte_fallback=True,
        minloglevel=2,
    )
    return out.getvalue()


def row(language: str, model_type: str, label: str, result: Measure, base: Measure) -> str:
    change = (result.tokens / base.tokens - 1) * 100
    orphans = round(result.orphans_per_1000 * result.tokens / 1000)
    return (
        f"| {language} | {model_type} | {label} | {result.tokens:,} | {change:+.1f}% | "
        f"{result.fertility:.3f} | {orphans:,} | {result.orphans_per_1000:.1f} |"
    )


def bench(language: str, train: list[str], held: list[str]) -> None:
    texts = [text for text in held if text.strip()]
    for model_type in ("unigram", "bpe"):
        data = train_plain(train, model_type)
        repair = IdRepair(data)
        sp = repair.processor
        rows = sp.encode(texts)
        decoded = sp.decode(rows)
        base = measure(sp, rows, texts)
        print(row(language, model_type, "plain", base, base))
        for label, repairer in (("id repair", repair), ("id repair, no bytes", None)):
            chosen = repairer or IdRepair(data, use_bytes=False)
            # timed calls the lambda at once: it sees this iteration's values
            seconds, fixed = timed(lambda: [chosen.repair(ids) for ids in rows])  # noqa: B023
            if sp.decode(fixed) != decoded:
                raise AssertionError(f"{language} {model_type} {label}: the text changed")
            rate = f"{len(rows) / seconds:,.0f} lines/s"
            print(row(language, model_type, f"{label} ({rate})", measure(sp, fixed, texts), base))
        for label, keep in (("vocab repair", False), ("vocab repair, lone marks kept", True)):
            fixed_model, report = repair_vocabulary(data, keep_lone_marks=keep)
            fixed_sp = stock.SentencePieceProcessor(model_proto=fixed_model)
            encoded = fixed_sp.encode(texts)
            if fixed_sp.decode(encoded) != decoded:
                raise AssertionError(f"{language} {model_type} {label}: the text changed")
            note = f"{label} ({len(report.disabled)} UNUSED)"
            print(row(language, model_type, note, measure(fixed_sp, encoded, texts), base))


def main() -> None:
    print(f"{VOCAB}-piece plain spm models with byte fallback; held-out text as in the docstring")
    print("| language | model | ids | tokens | vs plain | fertility | orphan marks | per 1000 |")
    print("|---|---|---|---|---|---|---|---|")
    bench("Telugu", lines("te.train.txt"), lines("te.extra.txt")[-HELD_OUT:])
    nepali = lines("ne.train.txt")
    bench("Nepali", nepali[:NE_TRAIN], nepali[NE_TRAIN : NE_TRAIN + HELD_OUT])


if __name__ == "__main__":
    main()
