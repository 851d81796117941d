#!/usr/bin/env bash
# Build SentencePiece 0.2.1's spm_train, spm_encode and spm_decode with the brahmic_pua patch.
#
#   patches/build.sh DIR            # binaries in DIR/bin, build tree in DIR/build
#   patches/build.sh --check DIR    # apply the patch and compile only the changed files (CI)
#
# 0.2.1 because its sdist bundles abseil and protobuf-lite and builds offline (0.2.3's build
# downloads them). Needs python3 with pip, cmake, g++ and patch. JOBS (default 2) sets the
# parallel compile jobs. Running it again reuses the download and recompiles only what changed.
set -euo pipefail

VERSION=0.2.1
SDIST_SHA256=8138cec27c2f2282f4a34d9a016e3374cd40e5c6e9cb335063db66a0a3b71fad
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PATCH_FILE="$HERE/sentencepiece-$VERSION-brahmic.patch"
HEADER="$HERE/brahmic_dependents.h"
JOBS=${JOBS:-2}
PYTHON=${PYTHON:-python3}
TOOLS=(spm_train spm_encode spm_decode)
# Objects of the files the patch touches: what --check compiles.
CHANGED=(trainer_interface unigram_model_trainer bpe_model_trainer)

die() {
  echo "build.sh: $*" >&2
  exit 1
}

check=0
if [[ ${1:-} == --check ]]; then
  check=1
  shift
fi
[[ $# -eq 1 ]] || die "usage: patches/build.sh [--check] DIR"
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || die "JOBS must be a positive integer, got '$JOBS'"
for tool in cmake g++ patch tar sha256sum; do
  command -v "$tool" >/dev/null || die "$tool not found; install it first"
done
"$PYTHON" -m pip --version >/dev/null 2>&1 || die "$PYTHON -m pip does not run; set PYTHON"
[[ -f $PATCH_FILE ]] || die "missing $PATCH_FILE"
[[ -f $HEADER ]] || die "missing $HEADER; run: brahmic-pua patch-table --output $HEADER"

mkdir -p "$1" || die "cannot create $1"
OUT=$(cd "$1" && pwd)
# DIR is ours alone: a rerun replaces DIR/src, so refuse a directory that holds anything else.
MARKER="$OUT/.brahmic-spm-build"
if [[ ! -f $MARKER && -n $(ls -A "$OUT") ]]; then
  die "$OUT is not empty and was not made by build.sh; give a new or empty directory"
fi
touch "$MARKER"
LOGS="$OUT/logs"
mkdir -p "$LOGS" "$OUT/sdist"
SDIST="$OUT/sdist/sentencepiece-$VERSION.tar.gz"

# run NAME CMD...: the command's output goes to logs/NAME.log; a failure is one line.
run() {
  local name=$1
  shift
  "$@" >"$LOGS/$name.log" 2>&1 || die "$name failed; see $LOGS/$name.log"
}

if [[ ! -f $SDIST ]]; then
  echo "downloading sentencepiece $VERSION sdist ..."
  run download "$PYTHON" -m pip download --no-deps --no-binary :all: \
    "sentencepiece==$VERSION" -d "$OUT/sdist"
fi
actual=$(sha256sum "$SDIST" | cut -d' ' -f1)
[[ $actual == "$SDIST_SHA256" ]] ||
  die "$SDIST has sha256 $actual, expected $SDIST_SHA256; delete it and run again"

# A fresh tree each run: the patch applies to pristine files. tar keeps the archive's old
# timestamps, so objects of untouched files stay up to date and only patched files recompile.
SRC="$OUT/src"
rm -rf "$SRC"
mkdir -p "$SRC"
run unpack tar -xzf "$SDIST" -C "$SRC"
TREE="$SRC/sentencepiece-$VERSION"
run patch patch -d "$TREE" -p1 --forward --batch -i "$PATCH_FILE"
cp "$HEADER" "$TREE/sentencepiece/src/"

# SPM_DISABLE_EMBEDDED_DATA must stay OFF: the sdist has no data/ directory, so with it ON
# (as the sdist's own build_bundled.sh sets it) nmt_nfkc, the default normalizer, is missing.
run configure cmake -G "Unix Makefiles" -S "$TREE/sentencepiece" -B "$OUT/build" \
  -DCMAKE_BUILD_TYPE=Release -DSPM_ENABLE_SHARED=OFF -DSPM_ENABLE_TCMALLOC=OFF \
  -DSPM_DISABLE_EMBEDDED_DATA=OFF

if ((check)); then
  targets=()
  for name in "${CHANGED[@]}"; do targets+=("$name.cc.o"); done
  targets+=(spm_train_main.cc.o)
  echo "compiling the patched files (${targets[*]}) ..."
  run compile make -C "$OUT/build/src" -j "$JOBS" "${targets[@]}"
  echo "patch applies to sentencepiece $VERSION and its changed files compile"
  exit 0
fi

echo "building ${TOOLS[*]} with $JOBS jobs (log: $LOGS/build.log) ..."
run build cmake --build "$OUT/build" --target "${TOOLS[@]}" -j "$JOBS"
mkdir -p "$OUT/bin"
for tool in "${TOOLS[@]}"; do
  cp "$OUT/build/src/$tool" "$OUT/bin/$tool"
done
usage=$("$OUT/bin/spm_train" --help 2>&1 || true)
[[ $usage == *--dependents_via_byte_fallback* ]] ||
  die "$OUT/bin/spm_train lacks --dependents_via_byte_fallback: the patch did not take"

ranges=$(grep -c '^    {0x' "$HEADER")
echo "built sentencepiece $VERSION + brahmic_pua patch ($ranges dependent ranges):"
for tool in "${TOOLS[@]}"; do
  echo "  $OUT/bin/$tool"
done
echo "use: export BRAHMIC_SPM_BIN=$OUT/bin"
