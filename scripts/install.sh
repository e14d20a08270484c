#!/usr/bin/env bash
# Install what the workbench needs; safe to run again, and quick when nothing changed.
#
#   1. Debian packages (only as root with apt-get; a failure is a warning, not fatal),
#   2. the virtualenv .venv (python3 -m venv),
#   3. pip install --require-hashes -r requirements/lock/dev.txt: exact versions, every file
#      checked against its sha256 (docs/deployment.md: Reproducible installs); only when the lock changed
#      since the last successful install (hash kept in .venv/.requirements.sha256).
#
# Environment: PYTHON (default python3), WORKBENCH_REQUIREMENTS (a lock file, default
# requirements/lock/dev.txt), WORKBENCH_SKIP_APT=1 to leave Debian packages alone.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { printf 'install: %s\n' "$*"; }
warn() { printf 'install: WARNING: %s\n' "$*" >&2; }

# Browser tests (chromium), English WordNet, the Portuguese thesauri and the European Portuguese
# Hunspell dictionary (its entries carry gender and number: Portuguese agreement).
DEBIAN_PACKAGES=(chromium wordnet-base wordnet-sense-index mythes-pt-pt mythes-pt-br hunspell-pt-pt)
REQUIREMENTS="${WORKBENCH_REQUIREMENTS:-requirements/lock/dev.txt}"
PYTHON="${PYTHON:-python3}"
VENV=.venv
STAMP="$VENV/.requirements.sha256"

# --- 1. Debian packages -----------------------------------------------------------------
missing=()
if command -v dpkg-query >/dev/null 2>&1; then
    for pkg in "${DEBIAN_PACKAGES[@]}"; do
        if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed'; then
            missing+=("$pkg")
        fi
    done
fi
if [ "${#missing[@]}" -eq 0 ]; then
    command -v dpkg-query >/dev/null 2>&1 && say "Debian packages present"
elif [ "${WORKBENCH_SKIP_APT:-0}" = 1 ]; then
    warn "missing Debian packages (WORKBENCH_SKIP_APT=1): ${missing[*]}"
elif [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive DEBCONF_NOWARNINGS=yes
    apt_opts=(-q -y -o DPkg::Lock::Timeout=300)
    if apt-get "${apt_opts[@]}" update >/dev/null &&
        apt-get "${apt_opts[@]}" install --no-install-recommends "${missing[@]}" >/dev/null; then
        say "Debian packages installed"
    else
        warn "apt-get failed; continuing without: ${missing[*]} (browser/WordNet tests may skip)"
    fi
else
    warn "missing Debian packages: ${missing[*]}"
    warn "install them with: sudo apt-get install --no-install-recommends ${missing[*]}"
fi

# --- 2. virtualenv ------------------------------------------------------------------------
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "install: ERROR: $PYTHON is not Python >= 3.11 (set PYTHON=/path/to/python3.11)" >&2
    exit 1
fi
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import sys' 2>/dev/null; then
    say "creating $VENV with $("$PYTHON" -V 2>&1)"
    "$PYTHON" -m venv --clear "$VENV"
    rm -f "$STAMP"
fi

# --- 3. Python requirements ----------------------------------------------------------------
# Packages named like one of the project's apps, installed in $VENV/peers (tests/peers.py runs them).
PEERS="datasets"
wanted="$(
    {
        echo "$REQUIREMENTS"
        "$VENV/bin/python" -V 2>&1
        cat "$REQUIREMENTS"
    } | sha256sum | cut -d' ' -f1
)"
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$wanted" ]; then
    say "Python requirements up to date ($REQUIREMENTS)"
else
    say "pip install --require-hashes -r $REQUIREMENTS (a few minutes on a fresh machine)"
    # The dev lock pins pip too (pip-tools needs it): this also moves the venv's pip to it.
    # (Drops pip's warnings about configured local index folders that do not exist.)
    # Peers named like one of the project's apps (Hugging Face's datasets) go to $VENV/peers, outside
    # site-packages: installed there, transformers would import the project's app in their place.
    split_dir="$(mktemp -d)"
    # An entry is its name==version line and the indented lines under it (hashes, "# via").
    awk -v peers="$PEERS" -v main="$split_dir/main.txt" -v out="$split_dir/peers.txt" '
        BEGIN { n = split(peers, list, " "); for (i = 1; i <= n; i++) wanted[list[i]] = 1 }
        /^#/ { peer = 0 }
        /^[^ \t#]/ { name = tolower($0); sub(/[=<>!~\[ ].*/, "", name); gsub(/[_.]/, "-", name); peer = (name in wanted) }
        { if (peer) print > out; else print > main }
    ' "$REQUIREMENTS"
    touch "$split_dir/peers.txt"
    { "$VENV/bin/python" -m pip install -q --disable-pip-version-check --require-hashes -r "$split_dir/main.txt" 2>&1 1>&3 |
        { grep -v 'is ignored: it is neither a file nor a directory' || true; } >&2; } 3>&1
    # A venv made before the split may hold a peer in site-packages: it leaves.
    for peer in $(sed -n 's/^\([A-Za-z0-9_.-]*\)==.*/\1/p' "$split_dir/peers.txt"); do
        if "$VENV/bin/python" -m pip show -q "$peer" >/dev/null 2>&1; then
            "$VENV/bin/python" -m pip uninstall -q -y "$peer"
        fi
    done
    rm -rf "$VENV/peers"
    if [ -s "$split_dir/peers.txt" ]; then
        { "$VENV/bin/python" -m pip install -q --disable-pip-version-check --require-hashes --no-deps \
            --target "$VENV/peers" -r "$split_dir/peers.txt" 2>&1 1>&3 |
            { grep -v 'is ignored: it is neither a file nor a directory' || true; } >&2; } 3>&1
    fi
    rm -rf "$split_dir"
    echo "$wanted" >"$STAMP"
    say "Python requirements installed"
fi

# --- 4. bytecode ----------------------------------------------------------------------------
# The project's modules compiled once (pip compiles the packages it installs): a process that
# finds no .pyc compiles every module it imports from source, and with PYTHONDONTWRITEBYTECODE
# set (containers, some CI) it does so at every start: a quarter of a second of each command's
# start-up here (benchmarks/startup.py). Only changed modules are compiled again.
"$VENV/bin/python" -m compileall -q -j0 annotation building config core datasets probing releases >/dev/null
