"""Install the other programs a brahmic_pua model must give the same ids in, each on its own.

``python tools/runtimes.py [FOLDER]`` makes, in FOLDER (default ``.ci/runtimes``, git-ignored;
``tests/peers/test_runtimes.py`` looks there or in the folder ``$BRAHMIC_PUA_RUNTIMES`` names):

- ``sentencepiece-<v>/``: a virtual environment with only stock sentencepiece ``v``, for every
  release from 0.1.99 to 0.2.2 (0.2.3 is the one brahmic_pua itself installs). Old versions
  cannot share one environment, and pinned environments are exactly where old versions live.
- ``onnxruntime-extensions-<v>/``: onnxruntime with onnxruntime-extensions (its
  ``SentencepieceTokenizer`` op embeds its own copy of sentencepiece) and onnx to build a graph.
- ``node-llama-cpp-<v>/``: llama.cpp's prebuilt binaries through the npm package
  node-llama-cpp, pinned (newer releases may not install on this platform).
- ``tokenizers-js-<v>/``: tokenizers.js (the npm package ``@huggingface/tokenizers``), which
  runs a ``tokenizer.json`` in JavaScript as browsers and Node do.

Everything comes from the package registries (pip, npm); a folder already there is kept.
``tools/runtime_worker.py`` is what runs inside the Python ones.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import venv
from pathlib import Path

SENTENCEPIECE = ("0.1.99", "0.2.0", "0.2.1", "0.2.2")
ORT_EXTENSIONS = "0.15.2"
NODE_LLAMA_CPP = "3.21.1"
TOKENIZERS_JS = "0.2.0"
#: Folder name → the npm package (pinned) installed there.
NODE_RUNTIMES = {
    f"node-llama-cpp-{NODE_LLAMA_CPP}": f"node-llama-cpp@{NODE_LLAMA_CPP}",
    f"tokenizers-js-{TOKENIZERS_JS}": f"@huggingface/tokenizers@{TOKENIZERS_JS}",
}
DEFAULT = Path(__file__).resolve().parents[1] / ".ci" / "runtimes"


def python_runtimes() -> dict[str, list[str]]:
    """Folder name → the requirements pip installs there."""
    found = {f"sentencepiece-{v}": [f"sentencepiece=={v}"] for v in SENTENCEPIECE}
    found[f"onnxruntime-extensions-{ORT_EXTENSIONS}"] = [
        f"onnxruntime-extensions=={ORT_EXTENSIONS}",
        "onnxruntime",
        "onnx",
        "numpy",
    ]
    return found


def _install_python(target: Path, requirements: list[str]) -> None:
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    venv.create(partial, with_pip=True)
    pip = [str(partial / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    subprocess.run([*pip, *requirements], check=True)
    partial.rename(target)  # only a finished environment gets the name the tests look for


def _install_node(target: Path, package: str) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise OSError(f"npm is not installed ({package} needs Node.js and npm)")
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    subprocess.run(
        [
            npm,
            "install",
            "--silent",
            "--no-audit",
            "--no-fund",
            "--prefix",
            str(partial),
            "-E",
            package,
        ],
        check=True,
    )
    partial.rename(target)


def install(folder: Path) -> list[Path]:
    """Every runtime into ``folder``; the folders, one per runtime."""
    folder.mkdir(parents=True, exist_ok=True)
    made = []
    for name, requirements in python_runtimes().items():
        target = folder / name
        if not target.is_dir():
            _install_python(target, requirements)
        made.append(target)
    for name, package in NODE_RUNTIMES.items():
        node = folder / name
        if not node.is_dir():
            _install_node(node, package)
        made.append(node)
    return made


def main() -> int:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    try:
        for path in install(folder):
            print(path)
    except (subprocess.CalledProcessError, OSError) as error:
        print(f"runtimes: could not install into {folder}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
