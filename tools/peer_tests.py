"""Fetch the outside test suites the drop-in claims are checked against, unchanged.

``python tools/peer_tests.py [FOLDER]`` downloads the source distributions of sentencepiece and
transformers at the versions this project pins (pip, from the package index; nothing else is
reached) and unpacks them into FOLDER (default ``.ci/peer``, git-ignored), where
``tests/peers/test_sentencepiece_suite.py`` and the transformers mixin tests look for them (or in
the folder ``$BRAHMIC_PUA_PEER_TESTS`` names). Their code is never committed here: the tests copy
it, change only the import lines, and run it. ``.ci/run`` runs this script before pytest.
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

#: The sdists, at the versions pyproject.toml pins (sentencepiece's range resolves to 0.2.3,
#: the release whose tests these are).
PACKAGES = ("sentencepiece==0.2.3", "transformers==5.24.0")
DEFAULT = Path(__file__).resolve().parents[1] / ".ci" / "peer"


def fetch(folder: Path) -> list[Path]:
    """Download and unpack each sdist into ``folder``; the unpacked folders, one per package.
    A folder already there is kept (the download is the slow part)."""
    folder.mkdir(parents=True, exist_ok=True)
    unpacked = []
    for requirement in PACKAGES:
        name, version = requirement.split("==")
        target = folder / f"{name}-{version}"
        unpacked.append(target)
        if target.is_dir():
            continue
        with tempfile.TemporaryDirectory() as download:
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pip",
                    "download",
                    "--quiet",
                    "--no-deps",
                    "--no-binary",
                    ":all:",
                    requirement,
                    "-d",
                    download,
                ],
                check=True,
            )
            (archive,) = Path(download).glob("*.tar.gz")
            with tarfile.open(archive) as tar:
                tar.extractall(folder, filter="data")
    return unpacked


def main() -> int:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    try:
        for path in fetch(folder):
            print(path)
    except (subprocess.CalledProcessError, OSError, tarfile.TarError, ValueError) as error:
        print(f"peer_tests: could not fetch the sdists into {folder}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
