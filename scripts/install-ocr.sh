#!/usr/bin/env bash
# Debian's tesseract-ocr with its Korean model, which `yakgwan appeal` uses to read a denial notice
# that is a picture (a scanned PDF, a PNG or JPEG photo). Needs root or sudo the first time; does
# nothing when both are there. Without them such a notice is refused with a message naming this script.
set -euo pipefail
need=()
command -v tesseract >/dev/null 2>&1 || need+=(tesseract-ocr)
dpkg -s tesseract-ocr-kor >/dev/null 2>&1 || need+=(tesseract-ocr-kor)
if [ "${#need[@]}" -eq 0 ]; then
  exit 0
fi
exec "$(dirname "$0")/apt-install.sh" install-ocr OCR "${need[@]}"
