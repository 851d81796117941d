"""spm options whose values are text that spm matches against its training text, given to spm in
the form that text has: clusters as their codes.

spm trains on its normalizer's output, and a brahmic_pua model's normalizer writes each cluster
as one Private Use code. A value spm compares with that output, given as the user wrote it,
would never match a cluster: ``required_chars="కా"`` would require two characters the training
text does not hold, ``pretokenization_delimiter`` made of Brahmic letters would never be found,
and ``seed_sentencepieces_file`` pieces would seed nothing. Each is mapped the way spm's
normalizer maps text (:func:`~brahmic_pua.trainer.pretokenize.training_form`: N, then clusters to
codes, ``▁`` kept as spm's space), so each does in brahmic_pua what it does in stock.
(``user_defined_symbols`` are the exception: spm matches them in the raw input, before its
rules; see :func:`brahmic_pua.trainer.checks.user_symbols`.)
"""

from __future__ import annotations

from pathlib import Path

from brahmic_pua.codec import PUACodec
from brahmic_pua.io.lines import file_lines
from brahmic_pua.normalize import Normalizer
from brahmic_pua.trainer.pretokenize import training_form
from brahmic_pua.trainer.spm_options import SpmOptions


def required_clusters(text: str, codec: PUACodec, normalizer: Normalizer) -> list[str]:
    """The clusters of ``required_chars`` that the codec has: they must keep their codes, so that
    spm can require them."""
    found = (codec.cluster_of(ch) for ch in codec.encode(normalizer(text)))
    return [cluster for cluster in found if cluster is not None]


def coded_options(
    options: SpmOptions, codec: PUACodec, normalizer: Normalizer, work: str
) -> SpmOptions:
    """``options`` (spm's) with the values spm matches against its training text mapped to
    that text's form; a seed file is written, mapped, into ``work``."""
    coded: dict[str, str] = {}
    for name in ("required_chars", "pretokenization_delimiter"):
        if value := options.text(name):
            coded[name] = training_form(value, codec, normalizer)
    if seeds := options.text("seed_sentencepieces_file"):
        coded["seed_sentencepieces_file"] = _mapped_seeds(seeds, codec, normalizer, work)
    return options.replace(**coded)


def _mapped_seeds(path: str, codec: PUACodec, normalizer: Normalizer, work: str) -> str:
    """A copy of a ``piece<TAB>frequency`` seed file with each piece in the training text's
    form (a line that is not such a pair is copied as it is: spm says what is wrong with it)."""
    if not Path(path).is_file():
        raise ValueError(f"seed_sentencepieces_file {path!r} not found: check the path")
    lines = []
    for line in file_lines(path):
        piece, tab, rest = line.partition("\t")
        lines.append(
            f"{training_form(piece, codec, normalizer)}{tab}{rest}\n" if tab else f"{line}\n"
        )
    mapped = Path(work, "seed_sentencepieces.tsv")
    mapped.write_text("".join(lines), encoding="utf-8")
    return str(mapped)


__all__ = ["coded_options", "required_clusters"]
