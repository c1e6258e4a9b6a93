#!/usr/bin/env bash
# One GPU session, as a single prepared script (at most about 9 minutes on one H100/H200 with 16 cores):
# install plyground offline, run the CUDA tests of tests/autograd, then the GPU benchmarks.
#
#   bash benchmarks/gpu_session.sh [OUT]          # logs and figures go to OUT (default: gpu-session/)
#
# The machine needs Python with numpy, numba, CuPy, pluggy, click, pytest (and PyTorch for the comparison);
# wheels for what it lacks (pygame, chess) can lie in .whl/ beside this repository's root: they are
# installed from there with no network.  Each step has its own time limit, so a slow or hung step
# still leaves the others' figures; the exit status is the tests' (0: every CUDA test passed).
#
# STEPS (space-separated, default: all but kernels): tests torch profile kernels evaluations selfplay workers
# TORCH_ARGS: more options for gpu_autograd_vs_torch.py (e.g. "--kernels cuda --graphs on")
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-${OUT:-gpu-session}}
mkdir -p "$OUT"
STEPS=${STEPS:-tests torch profile evaluations selfplay workers}
PY=${PYTHON:-python3}
export PYTHONUNBUFFERED=1 SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy
started=$(date +%s)
elapsed() { echo "[$(( $(date +%s) - started )) s]"; }
has() { [[ " $STEPS " == *" $1 "* ]]; }

echo "$(elapsed) machine: $(nproc) cores; $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1)"
source benchmarks/gpu_install.sh
install_offline || exit 2
$PY -c "import plyground, cupy, numba, numpy; print('plyground', plyground.__file__, '| cupy', cupy.__version__,
'| numba', numba.__version__, '| numpy', numpy.__version__)" || { echo "plyground did not import"; exit 2; }
$PY - <<'EOF'
try:
    import torch
    print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())
except Exception as exc:
    print("no PyTorch:", exc)
EOF

status=0
if has tests; then
    echo "$(elapsed) CUDA tests of tests/autograd (every case with a cuda parameter, and test_cuda.py)"
    timeout 150 $PY -m pytest -q -p no:cacheprovider -rs -k cuda tests/autograd 2>&1 | tee "$OUT/tests.log"
    status=${PIPESTATUS[0]}
    if grep -q "no GPU to test on" "$OUT/tests.log"; then echo "FAIL: CUDA tests skipped for want of a GPU"; status=1; fi
fi
if has torch; then
    echo "$(elapsed) our engine against PyTorch, batch 1,024 (ours with our CUDA kernels and with the portable ones; the train step as a CUDA graph and op by op)"
    timeout 180 $PY benchmarks/gpu_autograd_vs_torch.py --batch 1024 --rounds ${ROUNDS:-20} ${TORCH_ARGS:-} --json "$OUT/autograd_vs_torch.json" \
        2>&1 | tee "$OUT/autograd_vs_torch.log"
fi
if has selfplay; then
    echo "$(elapsed) self-play: one process feeding the GPU (compiles the search's numba kernels for the workers)"
    timeout 90 $PY benchmarks/gpu_selfplay.py --modes process --precision float16 --games ${PROCESS_GAMES:-256} \
        --parallel-games ${PROCESS_PARALLEL:-256} 2>&1 | tee "$OUT/selfplay.log"
fi
if has workers; then
    echo "$(elapsed) self-play: worker processes sharing the GPU"
    for precision in ${WORKER_PRECISIONS:-float16 float32}; do
        timeout ${WORKER_SECONDS:-100} $PY benchmarks/gpu_selfplay.py --modes workers --precision $precision \
            --workers ${WORKERS:-14} --games ${WORKER_GAMES:-896} --parallel-games ${WORKER_PARALLEL:-64} 2>&1
    done | tee "$OUT/workers.log"
fi
if has evaluations; then
    echo "$(elapsed) network evaluations per second, float32 and float16"
    for precision in float32 float16; do
        timeout 45 $PY benchmarks/gpu_selfplay.py --modes evaluations --precision $precision 2>&1
    done | tee "$OUT/evaluations.log"
fi
if has profile; then
    echo "$(elapsed) where our train step's and inference's time goes"
    timeout 60 $PY benchmarks/gpu_profile.py --batch 1024 2>&1 | tee "$OUT/profile.log"
fi
if has kernels; then
    echo "$(elapsed) the portable kernels' building blocks against their alternatives"
    timeout 60 $PY benchmarks/gpu_kernels.py --batch 1024 2>&1 | tee "$OUT/kernels.log"
fi
echo "$(elapsed) done; tests exit status $status"
exit $status
