#!/usr/bin/env bash
# Makes sure the demo has a dataset on a machine without internet access:
# if no MNIST copy is cached and Debian's Fashion-MNIST package is missing,
# install it (as root, or with sudo). The demo itself then prefers MNIST
# (cached or downloaded) and falls back to Fashion-MNIST.
set -euo pipefail
cache="${KERASGO_DATA:-$HOME/.kerasgo/datasets}"
if [ -e "$cache/mnist/train-images-idx3-ubyte.gz" ] || [ -e "$cache/mnist/train-images-idx3-ubyte" ] \
   || [ -e /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null; then
  echo "ensure-data: no apt-get here; the demo will try to download MNIST or Fashion-MNIST into $cache" >&2
  exit 0
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null; then sudo="sudo"; else
    echo "ensure-data: not root and no sudo: install dataset-fashion-mnist yourself, or let the demo download MNIST" >&2
    exit 0
  fi
fi
echo "ensure-data: installing Debian's dataset-fashion-mnist (the demo's offline fallback)"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq dataset-fashion-mnist
