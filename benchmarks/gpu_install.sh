# Sourced by the scripts run on a lent GPU machine (gpu_session.sh, gpu_chunk.sh), from the repository's root:
# `install_offline` installs plyground there with no network, the wheels of what the machine lacks (pygame,
# chess) carried in .whl/ and put on PYTHONPATH from /tmp/site; $PY is the Python to install into.
install_offline() {
    if ls .whl/*.whl >/dev/null 2>&1; then
        $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
            || { echo "installing the carried wheels failed"; return 2; }
        export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
    fi
    $PY -m pip install -q --no-index --no-deps --no-build-isolation -e . 2>&1 | grep -v "^WARNING"
    $PY -c "import plyground" 2>/dev/null || $PY -m pip install -q --no-index --no-deps --no-build-isolation . 2>&1 | tail -5
}
