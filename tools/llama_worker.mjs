// Tokenize texts with llama.cpp (node-llama-cpp, a vocabulary-only GGUF), as
// tools/runtime_worker.py does with the Python runtimes; run by tests/peers/test_runtimes.py,
// which copies this file beside node-llama-cpp's node_modules (ESM resolves imports from the
// script's own folder).
//
//   node llama_worker.mjs MODEL.gguf < texts.json
//
// stdin: a JSON list of texts (what llama.cpp is given: brahmic_pua.integrations.gguf's
// llama_input). stdout: one JSON object, {"ids": [[...], ...], "texts": [...]}, the ids of each
// text and llama.cpp's detokenization of them (special pieces not shown).
import {getLlama, LlamaLogLevel} from "node-llama-cpp";

const [modelPath] = process.argv.slice(2);
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const texts = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const llama = await getLlama({gpu: false, build: "never", logLevel: LlamaLogLevel.error});
const model = await llama.loadModel({modelPath, vocabOnly: true, gpuLayers: 0});
const ids = texts.map((text) => Array.from(model.tokenize(text, false)));
const decoded = ids.map((row) => model.detokenize(row, false));
process.stdout.write(JSON.stringify({ids, texts: decoded}));
await model.dispose();
await llama.dispose();
