#!/usr/bin/env bash
# Prepare the machine for the browser tests (tests/browser/). Idempotent; called from .ci/run.
# Never runs `playwright install`: the tests drive the system Chromium (/usr/bin/chromium).
set -euo pipefail

PYTHON="${PYTHON:-python3}"

# 1. A Chromium for Playwright to launch.
if [ ! -x /usr/bin/chromium ]; then
    SUDO=""
    if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
    $SUDO apt-get update
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends chromium
fi

# 2. nbclassic loads widgets (search results) through ipywidgets' nbextension (jupyter-js-widgets).
#    The widgetsnbextension wheel drops the files and the enable config into sys-prefix already;
#    installing and enabling it again makes sure of it (e.g. for environments built from sdists or
#    with tools that skip data files).
quiet() { local out; if ! out="$("$@" 2>&1)"; then echo "$out" >&2; return 1; fi; }
for pkg in widgetsnbextension; do
    quiet "$PYTHON" -m jupyter nbclassic-extension install --py "$pkg" --sys-prefix --overwrite
    quiet "$PYTHON" -m jupyter nbclassic-extension enable --py "$pkg" --sys-prefix
done

# 3. Show what nbclassic will load, and fail loudly if it is missing.
listing="$("$PYTHON" -m jupyter nbclassic-extension list 2>&1)"
echo "$listing"
for ext in jupyter-js-widgets/extension; do
    if ! grep -q "$ext.*enabled" <<<"$listing"; then
        echo "browser-setup: nbclassic extension $ext is not enabled" >&2
        exit 1
    fi
done
# 4. JupyterLab 4 / Notebook 7 render panels with jaxerrs' prebuilt extension (built by pip install).
labs="$("$PYTHON" -m jupyter labextension list 2>&1)"
if ! grep -Eq "jaxerrs v[0-9.]+.*enabled.*OK" <<<"$(sed 's/\x1b\[[0-9;]*m//g' <<<"$labs")"; then
    echo "$labs" >&2
    echo "browser-setup: the jaxerrs lab extension is not installed and enabled (pip install -e . builds it)" >&2
    exit 1
fi
"$PYTHON" -c "import playwright.sync_api" || { echo "browser-setup: playwright (python) missing" >&2; exit 1; }
/usr/bin/chromium --version 2>/dev/null
