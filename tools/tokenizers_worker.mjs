// Tokenize texts with tokenizers.js (@huggingface/tokenizers, a tokenizer.json in JavaScript),
// as tools/runtime_worker.py does with the Python runtimes; run by tests/peers/test_runtimes.py,
// which copies this file beside the package's node_modules (ESM resolves imports from the
// script's own folder).
//
//   node tokenizers_worker.mjs tokenizer.json < texts.json
//
// stdin: a JSON list of texts. stdout: one JSON object, {"ids": [[...], ...], "texts": [...]},
// the ids of each text (no special tokens added) and tokenizers.js's decoding of them.
import {readFileSync} from "node:fs";
import {Tokenizer} from "@huggingface/tokenizers";

const [path] = process.argv.slice(2);
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const texts = JSON.parse(Buffer.concat(chunks).toString("utf8"));
// clean_up_tokenization_spaces: off, as in transformers' config for our tokenizer (on, it
// deletes the space before punctuation in decoded text)
const config = {clean_up_tokenization_spaces: false};
const tokenizer = new Tokenizer(JSON.parse(readFileSync(path, "utf8")), config);
const ids = texts.map((text) =>
  Array.from(tokenizer.encode(text, {add_special_tokens: false}).ids),
);
const decoded = ids.map((row) => tokenizer.decode(row, {skip_special_tokens: false}));
process.stdout.write(JSON.stringify({ids, texts: decoded}));
