"""Encode speed of a BPE model's exported forms against our processor, side by side, one text.

    python bench/bench_runtimes.py [--lines 2000] [--model M.model] [--repeat 5]

Without ``--model`` trains an 8,000-piece BPE model on te.train. The text is the first
``--lines`` lines of te.extra (held out). Python runtimes are timed in alternation, best of
``--repeat`` (bench/common.py's best_of), in this process: our processor
(``brahmic_pua.SentencePieceProcessor.encode(lines)``), stock sentencepiece on the text-spelled
model (``export --to spm``), tokenizers on the tokenizer.json (``encode_batch``, its own
threads, then one thread: ``TOKENIZERS_PARALLELISM`` has no say after the first call, so the
single-thread row loops over ``encode``) and transformers' AutoTokenizer on the folder
``save_pretrained`` writes. The Node runtimes (tokenizers.js, llama.cpp through
node-llama-cpp, from ``tools/runtimes.py``'s folder) time their own loop, best of
``--repeat``, and our processor's time from the same run is their denominator too, so the
ratios are ours ÷ theirs' reciprocal: a ratio above 1 is slower than our processor. Every
runtime's ids are checked against ours before it is timed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import tempfile
import unicodedata
from collections.abc import Callable
from itertools import islice
from pathlib import Path
from typing import Any

import sentencepiece as stock
from tokenizers import Tokenizer
from transformers import AutoTokenizer

import brahmic_pua
from brahmic_pua.hf import BrahmicPuaTokenizer
from brahmic_pua.integrations.gguf import write_gguf
from brahmic_pua.integrations.hf_json import tokenizer_json
from brahmic_pua.io.lines import file_lines
from brahmic_pua.model.text_spelling import spell_in_text

from common import CORPORA, best_of

ROOT = Path(__file__).resolve().parents[1]
RUNTIMES = Path(os.environ.get("BRAHMIC_PUA_RUNTIMES") or ROOT / ".ci" / "runtimes")
#: A Node script per runtime: reads the texts' JSON on stdin, prints the best seconds.
NODE = {
    "tokenizers.js 0.2.0": (
        "tokenizers-js-0.2.0",
        """import {readFileSync} from "node:fs";
import {Tokenizer} from "@huggingface/tokenizers";
const [path, repeat, expected] = process.argv.slice(2);
const texts = await stdinJson();
const tok = new Tokenizer(JSON.parse(readFileSync(path, "utf8")), {});
const encode = () => texts.map((t) => Array.from(tok.encode(t, {add_special_tokens: false}).ids));
""",
    ),
    "llama.cpp (node-llama-cpp 3.21.1), raw text": (
        "node-llama-cpp-3.21.1",
        """import {readFileSync} from "node:fs";
import {getLlama, LlamaLogLevel} from "node-llama-cpp";
const [path, repeat, expected] = process.argv.slice(2);
const texts = await stdinJson();
const llama = await getLlama({gpu: false, build: "never", logLevel: LlamaLogLevel.error});
const model = await llama.loadModel({modelPath: path, vocabOnly: true, gpuLayers: 0});
const encode = () => texts.map((t) => Array.from(model.tokenize(t, false)));
""",
    ),
}
#: Put before each script (ES imports are hoisted): the texts are read from stdin by async
#: iteration (node-llama-cpp leaves stdin non-blocking, where readFileSync(0) fails with EAGAIN).
NODE_STDIN = """const stdinJson = async () => {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
};
"""
NODE_TIMING = """
const ids = encode();
if (JSON.stringify(ids) !== readFileSync(expected, "utf8")) throw new Error("other ids");
let best = Infinity;
for (let i = 0; i < Number(repeat); i++) {
  const start = performance.now();
  encode();
  best = Math.min(best, (performance.now() - start) / 1000);
}
process.stdout.write(String(best));
process.exit(0);
"""


def node_seconds(name: str, model_file: Path, texts: list[str], ids: Any, repeat: int) -> float:
    folder, script = NODE[name]
    where = RUNTIMES / folder
    if not (where / "node_modules").is_dir():
        raise SystemExit(f"{where} is missing: run python tools/runtimes.py")
    path = where / "bench_encode.mjs"
    path.write_text(NODE_STDIN + script + NODE_TIMING, encoding="utf-8")
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as expected:
        json.dump(ids, expected, separators=(",", ":"))
    try:
        done = subprocess.run(
            ["node", str(path), str(model_file), str(repeat), expected.name],
            input=json.dumps(texts),
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        os.unlink(expected.name)
        path.unlink()
    if done.returncode != 0:
        error = [line for line in done.stderr.splitlines() if "Error" in line]
        raise SystemExit(f"{name}: {error[:1] or done.stderr[-300:]}")
    return float(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--model")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    texts = [t for t in islice(file_lines(CORPORA / "te.extra.txt"), args.lines * 2) if t][
        : args.lines
    ]
    with tempfile.TemporaryDirectory() as work:
        model = Path(args.model) if args.model else Path(work, "te.model")
        if not args.model:
            brahmic_pua.SentencePieceTrainer.train(
                input=str(CORPORA / "te.train.txt"),
                model_prefix=str(model.with_suffix("")),
                vocab_size=8000,
                model_type="bpe",
            )
        data = model.read_bytes()
        ours = brahmic_pua.SentencePieceProcessor(model_proto=data)
        spelled = stock.SentencePieceProcessor(model_proto=spell_in_text(data).data)
        json_file = Path(work, "tokenizer.json")
        json_file.write_text(tokenizer_json(data).text, encoding="utf-8")
        rust = Tokenizer.from_file(str(json_file))
        BrahmicPuaTokenizer(model).save_pretrained(Path(work, "hf"))
        auto = AutoTokenizer.from_pretrained(Path(work, "hf"))
        gguf_file = Path(work, "model.gguf")
        write_gguf(data, gguf_file)
        runs: dict[str, Callable[[], Any]] = {
            "our processor": lambda: ours.encode(texts),
            "stock sentencepiece, spelled in text": lambda: spelled.encode(texts),
            "tokenizers, encode_batch": lambda: [
                e.ids for e in rust.encode_batch(texts, add_special_tokens=False)
            ],
            "tokenizers, one thread": lambda: [
                rust.encode(t, add_special_tokens=False).ids for t in texts
            ],
            "transformers AutoTokenizer (fast)": lambda: auto(texts, add_special_tokens=False)[
                "input_ids"
            ],
        }
        expected = ours.encode(texts)
        for name, run in runs.items():
            if run() != expected:
                raise SystemExit(f"{name} gives other ids than our processor")
        best = best_of(runs, args.repeat)
        seconds = {name: value[0] for name, value in best.items()}
        nodes = {
            "tokenizers.js 0.2.0": json_file,
            "llama.cpp (node-llama-cpp 3.21.1), raw text": gguf_file,
        }
        for name, file in nodes.items():
            if shutil.which("node") is None:
                break
            given = texts  # llama.cpp applies no normalizer: N (NFC) first, as documented
            if "llama" in name:
                given = [unicodedata.normalize("NFC", t) for t in texts]
            seconds[name] = node_seconds(name, file, given, expected, args.repeat)
    base = seconds["our processor"]
    megabytes = sum(len(t.encode("utf-8")) for t in texts) / 1e6
    print(f"{len(texts):,} lines of te.extra ({megabytes:.2f} MB), best of {args.repeat}")
    for name, value in seconds.items():
        print(f"{name:45} {value:8.3f} s  {value / base:5.2f} x ours")


if __name__ == "__main__":
    main()
