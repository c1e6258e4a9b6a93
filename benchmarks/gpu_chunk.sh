#!/usr/bin/env bash
# One chunk of a GPU training run (issue #55; docs/alphazero.md "Runs in chunks"), in two halves:
#
#   bash benchmarks/gpu_chunk.sh device NAME [MINUTES]
#       The whole command on a lent GPU machine (run from the repository's root, .gpu-runs carried):
#       installs plyground with no network, unpacks the run's last pack (.gpu-runs/NAME) -- or, where
#       that was lost, the small state this repository keeps (docs/alphazero/gpu-runs/NAME) -- trains
#       MINUTES (default 8) with configs/alphazero-NAME-gpu.toml, and packs the run into $OUT/NAME
#       (at most 7 files, 24 MiB) with its log beside it ($OUT/NAME.log).
#
#   bash benchmarks/gpu_chunk.sh back NAME FOLDER
#       Here, with FOLDER the files that came back: unpacks them into runs/gpu/NAME, keeps the pack in
#       .gpu-runs/NAME (carried by the next chunk), writes the small state (no self-play examples) to
#       docs/alphazero/gpu-runs/NAME, and redraws the run's curve against GPU minutes
#       (docs/alphazero/gpu-NAME-curve.png and .jsonl).  Then commit docs/alphazero.
#
# NAME: connect-four or checkers.  TRAIN_ARGS: more arguments for `plyground train` (e.g. "--set workers=12").  A chunk that overruns is stopped with SIGTERM, which the trainer takes
# as Ctrl-C (its workers stopped, its session written); the pack is made in any case, from what is saved.
set -uo pipefail
cd "$(dirname "$0")/.."
MODE=${1:?usage: gpu_chunk.sh device NAME [MINUTES] | back NAME FOLDER}
NAME=${2:?usage: gpu_chunk.sh device NAME [MINUTES] | back NAME FOLDER}
CONFIG=configs/alphazero-$NAME-gpu.toml
KEPT=docs/alphazero/gpu-runs/$NAME
PACK=.gpu-runs/$NAME
[ -f "$CONFIG" ] || { echo "gpu_chunk.sh: no $CONFIG; NAME is connect-four or checkers"; exit 2; }
PY=${PYTHON:-python3}

if [ "$MODE" = device ]; then
    MINUTES=${3:-8}
    [[ "$MINUTES" =~ ^[0-9]+([.][0-9]+)?$ ]] || { echo "gpu_chunk.sh: MINUTES is a number, not $MINUTES"; exit 2; }
    HARD_LIMIT=$(awk "BEGIN { print int($MINUTES * 60 + 45) }")
    OUT=${OUT:-gpu-chunk-out}
    RUN=${RUN:-/tmp/gpu-run-$NAME}
    mkdir -p "$OUT"
    LOG="$OUT/$NAME.log"
    exec > >(tee "$LOG") 2>&1
    export PYTHONUNBUFFERED=1 SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy
    started=$(date +%s)
    elapsed() { echo "[$(( $(date +%s) - started )) s]"; }
    echo "$(elapsed) $NAME, $MINUTES minutes; $(nproc) cores; $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>&1)"
    source benchmarks/gpu_install.sh
    install_offline || exit 2
    if [ "$NAME" = connect-four ]; then
        $PY -m pip install -q --no-index --no-deps --no-build-isolation -e examples/connect-four 2>&1 | grep -v "^WARNING"
    fi
    $PY -c "import plyground" || { echo "plyground did not import"; exit 2; }
    rm -rf "$RUN"
    if [ -f "$PACK/pack.json" ]; then
        $PY -m plyground alphazero unpack --from "$PACK" --run "$RUN" || exit 2
    elif [ -f "$KEPT/pack.json" ]; then
        echo "$(elapsed) no carried pack: going on from the state the repository keeps (without its examples)"
        $PY -m plyground alphazero unpack --from "$KEPT" --run "$RUN" || exit 2
    else
        echo "$(elapsed) a new run"
    fi
    echo "$(elapsed) training"
    # the trainer stops itself before MINUTES; the timeout is for a unit that overruns
    timeout --signal=TERM --kill-after=30 "$HARD_LIMIT" \
        $PY -m plyground train alphazero --run "$RUN" --config "$CONFIG" --minutes "$MINUTES" ${TRAIN_ARGS:-} 2>&1 \
        | grep --line-buffered -v "^plyground: warning: plugin"
    echo "$(elapsed) training ended (exit ${PIPESTATUS[0]}); packing"
    if ! $PY -m plyground alphazero pack --run "$RUN" --to "$OUT/$NAME"; then
        echo "$(elapsed) the run does not fit in a pack: packed without its self-play examples instead"
        rm -rf "$OUT/$NAME"
        $PY -m plyground alphazero pack --run "$RUN" --to "$OUT/$NAME" --no-replay || exit 2
    fi
    echo "$(elapsed) done"
elif [ "$MODE" = back ]; then
    FOLDER=${3:?usage: gpu_chunk.sh back NAME FOLDER}
    RUN=${RUN:-runs/gpu/$NAME}
    PG="$PY -m plyground"
    [ -f "$FOLDER/$NAME/pack.json" ] || { echo "gpu_chunk.sh: $FOLDER/$NAME holds no pack"; exit 2; }
    # the pack is kept first: whatever the unpack says, the chunk's work is not lost
    rm -rf "$PACK.new" && mkdir -p .gpu-runs && cp -r "$FOLDER/$NAME" "$PACK.new" && rm -rf "$PACK" && mv "$PACK.new" "$PACK"
    $PG alphazero unpack --from "$PACK" --run "$RUN" || exit 2
    [ -f "$FOLDER/$NAME.log" ] && mkdir -p "$RUN/logs" && cp "$FOLDER/$NAME.log" "$RUN/logs/chunk-$(date +%Y%m%d-%H%M%S).log"
    $PG alphazero pack --run "$RUN" --to "$KEPT" --no-replay || exit 2
    $PY benchmarks/alphazero_gpu_curve.py "$RUN" --out "docs/alphazero/gpu-$NAME-curve" \
        --title "$NAME, $(basename "$CONFIG")" || exit 2
    echo "kept: $KEPT and docs/alphazero/gpu-$NAME-curve.*; the next chunk carries $PACK"
else
    echo "gpu_chunk.sh: the first argument is device or back, not $MODE"
    exit 2
fi
