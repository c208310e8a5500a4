"""A real OpenAI-compatible model server on this machine, for tests and offline runs.

Two pieces:

- :func:`write_tiny_model` writes a tiny llama-architecture GGUF model with random weights and a
  byte-level vocabulary (any text, hence any JSON, can be spelled). Its answers carry no skill;
  they are real decodes of a real network, so with schema-constrained decoding every reply is
  valid against the schema and the whole path (prompt → HTTP → decode → parse → validate) runs
  for real.
- :class:`LocalLlamaServer` runs llama.cpp's C++ ``llama-server`` (built and cached by
  ``scripts/llama_server.sh``) on a free loopback port with a model, waits until it is ready, and
  stops it on exit. Point any OpenAI client at :attr:`LocalLlamaServer.base_url` with
  :attr:`LocalLlamaServer.model` as the model name (any API key: the server checks none).

Needs the ``llm`` extra (``pip install "pf1e-gym[llm]"``: ``gguf``, ``numpy``, ``openai``).
See ``docs/local-llm.md``.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import TracebackType

import numpy as np

__all__ = [
    "DEFAULT_N_CTX",
    "TINY_CHAT_TEMPLATE",
    "TINY_MODEL_NAME",
    "LlamaServerError",
    "LocalLlamaServer",
    "find_llama_server",
    "write_tiny_model",
]

#: Environment variable naming the ``llama-server`` binary (``scripts/llama_server.sh`` prints one).
SERVER_ENV = "PF1E_LLAMA_SERVER"

#: Model name the server answers to (``--alias``) unless told otherwise.
TINY_MODEL_NAME = "pf1e-tiny-random"

#: Context length, in tokens, of the tiny model and of the server by default. The byte vocabulary
#: spends about one token per byte of UTF-8 text, and a text observation is ~1-3k characters plus
#: the system prompt and the reply, so 8192 leaves room for a few turns of retries.
DEFAULT_N_CTX = 8192

#: Chat template written into the tiny model (Jinja, as in Hugging Face tokenizer configs): one
#: ``role: content`` line per message, then ``assistant:``. Short on purpose — every template byte
#: is a token to evaluate with a byte vocabulary.
TINY_CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ message['role'] }}: {{ message['content'] }}\n"
    "{% endfor %}"
    "{% if add_generation_prompt %}assistant: {% endif %}"
)

# Shape of the tiny network (llama architecture).
_N_LAYER = 2
_N_EMBD = 64
_N_HEAD = 4
_N_FF = 128
_RMS_EPS = 1e-5
# gguf's TokenType values (gguf.TokenType): NORMAL, UNKNOWN, CONTROL, BYTE.
_TT_NORMAL, _TT_UNKNOWN, _TT_CONTROL, _TT_BYTE = 1, 2, 3, 6


def _vocabulary() -> tuple[list[str], list[float], list[int]]:
    """Tokens, scores and token types of the byte-level SPM vocabulary (260 tokens).

    Ids: 0 ``<unk>``, 1 ``<s>`` (BOS), 2 ``</s>`` (EOS), 3..258 the byte tokens ``<0x00>`` ..
    ``<0xFF>``, 259 ``▁`` (the SentencePiece space). The tokenizer falls back to byte tokens for
    every character, so any UTF-8 text is representable.
    """
    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)] + ["\u2581"]
    types = [_TT_UNKNOWN, _TT_CONTROL, _TT_CONTROL] + [_TT_BYTE] * 256 + [_TT_NORMAL]
    scores = [0.0] * len(tokens)
    return tokens, scores, types


def write_tiny_model(
    path: str | os.PathLike[str],
    seed: int = 0,
    *,
    n_ctx: int = DEFAULT_N_CTX,
    chat_template: str | None = TINY_CHAT_TEMPLATE,
) -> Path:
    """Write a tiny llama-architecture GGUF model with random weights to ``path``.

    The network: 2 layers, embedding 64, 4 attention heads (head size 16, no grouped-query
    attention), feed-forward 128, RMS norm, RoPE; float32 weights: matrices drawn from a normal
    distribution of std 0.02 by ``numpy.random.default_rng(seed)``, norm gains 1.
    The vocabulary is :func:`_vocabulary`'s 260 byte-level tokens with the ``llama`` (SPM)
    tokenizer. About 470 KB; written in well under a second.

    Deterministic: the same ``seed``, ``n_ctx`` and ``chat_template`` give a byte-identical file.

    Args:
        path: file to write (its folder must exist); overwritten if present.
        seed: seed of the weights (any non-negative integer).
        n_ctx: ``llama.context_length`` metadata, in tokens (the server's default context).
        chat_template: Jinja chat template stored as ``tokenizer.chat_template``; ``None`` for none
            (the server then falls back to its default template).

    Returns:
        ``path`` as a :class:`~pathlib.Path`.

    Raises:
        ValueError: ``seed`` negative or ``n_ctx`` not positive.
        ImportError: the ``gguf`` package is missing (install the ``llm`` extra).
    """
    if seed < 0:
        raise ValueError(f"seed: must be >= 0, got {seed}")
    if n_ctx <= 0:
        raise ValueError(f"n_ctx: must be > 0 tokens, got {n_ctx}")
    try:
        import gguf
    except ImportError as err:  # pragma: no cover - depends on the install
        raise ImportError(
            'write_tiny_model needs the gguf package: pip install "pf1e-gym[llm]"'
        ) from err

    path = Path(path)
    rng = np.random.default_rng(seed)
    tokens, scores, types = _vocabulary()
    n_vocab = len(tokens)

    def matrix(rows: int, cols: int) -> np.ndarray:
        # numpy shape (rows, cols) is ggml's ne = [cols, rows]: cols is the input dimension.
        return (rng.standard_normal((rows, cols)) * 0.02).astype(np.float32)

    def gain(n: int) -> np.ndarray:
        return np.ones(n, dtype=np.float32)

    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_name("pf1e-gym tiny random llama")
    writer.add_context_length(n_ctx)
    writer.add_embedding_length(_N_EMBD)
    writer.add_block_count(_N_LAYER)
    writer.add_feed_forward_length(_N_FF)
    writer.add_head_count(_N_HEAD)
    writer.add_head_count_kv(_N_HEAD)
    writer.add_rope_dimension_count(_N_EMBD // _N_HEAD)
    writer.add_layer_norm_rms_eps(_RMS_EPS)
    writer.add_vocab_size(n_vocab)
    writer.add_file_type(0)  # all float32
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores(scores)
    writer.add_token_types(types)
    writer.add_unk_token_id(0)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_add_bos_token(True)
    if chat_template is not None:
        writer.add_chat_template(chat_template)

    writer.add_tensor("token_embd.weight", matrix(n_vocab, _N_EMBD))
    for layer in range(_N_LAYER):
        blk = f"blk.{layer}."
        writer.add_tensor(blk + "attn_norm.weight", gain(_N_EMBD))
        for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
            writer.add_tensor(blk + name + ".weight", matrix(_N_EMBD, _N_EMBD))
        writer.add_tensor(blk + "ffn_norm.weight", gain(_N_EMBD))
        writer.add_tensor(blk + "ffn_gate.weight", matrix(_N_FF, _N_EMBD))
        writer.add_tensor(blk + "ffn_up.weight", matrix(_N_FF, _N_EMBD))
        writer.add_tensor(blk + "ffn_down.weight", matrix(_N_EMBD, _N_FF))
    writer.add_tensor("output_norm.weight", gain(_N_EMBD))
    # Without output.weight llama.cpp ties the output layer to token_embd.

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


class LlamaServerError(RuntimeError):
    """``llama-server`` could not be found, did not start, or died while starting."""


def find_llama_server(binary: str | os.PathLike[str] | None = None) -> Path:
    """Resolve the ``llama-server`` binary: ``binary`` if given, else ``$PF1E_LLAMA_SERVER``.

    Raises:
        LlamaServerError: neither is set, or the path is not an executable file.
    """
    source = "binary argument"
    if binary is None:
        env = os.environ.get(SERVER_ENV)
        if not env:
            raise LlamaServerError(
                f"no llama-server binary: pass binary=... or set {SERVER_ENV} "
                f"(e.g. {SERVER_ENV}=$(bash scripts/llama_server.sh))"
            )
        binary, source = env, SERVER_ENV
    found = shutil.which(str(binary))
    if found is None:
        raise LlamaServerError(f"{source}: {binary!s} is not an executable file")
    return Path(found).resolve()


def _free_loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _die_with_parent() -> None:  # pragma: no cover - runs in the child before exec
    """Linux: have the kernel send SIGTERM to the server when the Python process dies."""
    with contextlib.suppress(Exception):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGTERM)


class LocalLlamaServer:
    """A ``llama-server`` process serving one model on ``127.0.0.1``, as a context manager.

    >>> with LocalLlamaServer("tiny.gguf") as server:            # doctest: +SKIP
    ...     client = openai.OpenAI(base_url=server.base_url, api_key="none")
    ...     client.chat.completions.create(model=server.model, messages=[...])

    The server runs one request at a time (one slot, ``-np 1``) with the whole context
    ``n_ctx`` for it, greedy-friendly defaults left to the request (``temperature``, ``seed``),
    and OpenAI's ``response_format={"type": "json_schema", ...}`` compiled to a grammar by
    llama.cpp, so replies are valid against the schema. The Jinja chat template of the model is
    used (``--jinja``). Its log goes to :attr:`log_path`.

    Stopping: :meth:`stop` (or leaving the ``with`` block) sends SIGTERM, then SIGKILL after 5 s;
    on Linux the server also gets SIGTERM if the Python process dies, so no orphan is left.

    Args:
        model_path: the GGUF model file.
        binary: the ``llama-server`` binary; default ``$PF1E_LLAMA_SERVER``
            (:func:`find_llama_server`).
        n_ctx: context size in tokens (prompt + reply of one request).
        model_name: the name the server answers to (``--alias``) and :attr:`model`.
        threads: CPU threads for decoding; default 2 (this machine kind has 2 cores).
        port: TCP port; default (or 0) a free one chosen at start.
        startup_timeout: seconds to wait for ``/health`` to answer 200.
        extra_args: more ``llama-server`` command-line arguments, appended as given.
        log_path: file receiving the server's stdout and stderr; default a temporary file.

    Raises (from :meth:`start`):
        LlamaServerError: the binary is missing, the model file is missing, or the server exits
            or stays unready past ``startup_timeout`` (the message ends with its log's tail).
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str],
        *,
        binary: str | os.PathLike[str] | None = None,
        n_ctx: int = DEFAULT_N_CTX,
        model_name: str = TINY_MODEL_NAME,
        threads: int = 2,
        port: int | None = None,
        startup_timeout: float = 60.0,
        extra_args: tuple[str, ...] | list[str] = (),
        log_path: str | os.PathLike[str] | None = None,
    ) -> None:
        if n_ctx <= 0:
            raise ValueError(f"n_ctx: must be > 0 tokens, got {n_ctx}")
        if threads <= 0:
            raise ValueError(f"threads: must be > 0, got {threads}")
        self.model_path = Path(model_path)
        self.binary = binary
        self.n_ctx = n_ctx
        self.model = model_name
        self.threads = threads
        if port is not None and not 0 <= port <= 65535:
            raise ValueError(f"port: must be 0 to 65535, got {port}")
        # 0 = any free port, as for a socket (passed as is, llama-server would bind a port
        # of its own choosing that nobody can learn, and start() would wait in vain).
        self.port = port or None
        self.startup_timeout = startup_timeout
        self.extra_args = tuple(extra_args)
        self.log_path: Path | None = Path(log_path) if log_path is not None else None
        self._own_log = log_path is None
        self._proc: subprocess.Popen[bytes] | None = None
        #: Seconds from spawning the process to ``/health`` answering 200 (set by :meth:`start`).
        self.startup_seconds: float | None = None

    # -- addresses ---------------------------------------------------------------------------
    @property
    def url(self) -> str:
        """The server's root, ``http://127.0.0.1:PORT`` (``/health``, ``/props``...)."""
        if self.port is None:
            raise LlamaServerError("the server is not started")
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible API root, ``http://127.0.0.1:PORT/v1`` (for ``openai.OpenAI``)."""
        return self.url + "/v1"

    @property
    def running(self) -> bool:
        """Whether the server process is alive."""
        return self._proc is not None and self._proc.poll() is None

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> LocalLlamaServer:
        """Spawn the server and block until ``/health`` answers 200. Returns ``self``."""
        if self.running:
            return self
        binary = find_llama_server(self.binary)
        if not self.model_path.is_file():
            raise LlamaServerError(f"model_path: no such file {self.model_path}")
        if self.log_path is None:
            fd, name = tempfile.mkstemp(prefix="llama-server-", suffix=".log")
            os.close(fd)
            self.log_path = Path(name)
        chosen_port = self.port is None
        attempts = 3 if chosen_port else 1
        for attempt in range(attempts):
            if chosen_port:
                self.port = _free_loopback_port()
            try:
                self._spawn(binary)
                return self
            except LlamaServerError:
                # Another process may have taken the free port between the check and the bind.
                if attempt + 1 == attempts or "bind" not in self._log_tail().lower():
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _spawn(self, binary: Path) -> None:
        cmd = [
            str(binary),
            "--model", str(self.model_path),
            "--host", "127.0.0.1",
            "--port", str(self.port),
            "--ctx-size", str(self.n_ctx),
            "--parallel", "1",
            "--threads", str(self.threads),
            "--alias", self.model,
            "--jinja",
            "--no-webui",
            *self.extra_args,
        ]  # fmt: skip
        assert self.log_path is not None
        with open(self.log_path, "ab") as log:
            self._proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
            )
        spawned = time.monotonic()
        deadline = spawned + self.startup_timeout
        while True:
            code = self._proc.poll()
            if code is not None:
                self._proc = None
                raise LlamaServerError(
                    f"llama-server exited with status {code} while starting:\n{self._log_tail()}"
                )
            if self._healthy():
                self.startup_seconds = time.monotonic() - spawned
                return
            if time.monotonic() > deadline:
                self.stop()
                raise LlamaServerError(
                    f"llama-server not ready after {self.startup_timeout} s:\n{self._log_tail()}"
                )
            time.sleep(0.05)

    def _healthy(self) -> bool:
        try:
            with urllib.request.urlopen(self.url + "/health", timeout=2) as resp:
                return bool(resp.status == 200 and json.load(resp).get("status") == "ok")
        except (urllib.error.URLError, ConnectionError, TimeoutError, ValueError):
            return False

    def _log_tail(self, n: int = 4000) -> str:
        if self.log_path is None or not self.log_path.exists():
            return "(no log)"
        return self.log_path.read_text(errors="replace")[-n:]

    def stop(self) -> None:
        """Stop the server (SIGTERM, SIGKILL after 5 s) and wait for it. Idempotent."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def close(self) -> None:
        """:meth:`stop`, then delete the log if it was a temporary file of this object."""
        self.stop()
        if self._own_log and self.log_path is not None:
            self.log_path.unlink(missing_ok=True)
            self.log_path = None

    def __enter__(self) -> LocalLlamaServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __del__(self) -> None:  # last resort; the context manager is the way
        with contextlib.suppress(Exception):
            self.stop()


def main(argv: list[str] | None = None) -> int:
    """``python -m pf1e_gym.llm.local_model``: serve the tiny model until interrupted.

    Writes the tiny random-weight model (``--seed``) to ``--model-out`` (default: a temporary
    file), starts ``llama-server`` (``--binary`` or ``$PF1E_LLAMA_SERVER``) on ``--port``
    (default 8080), prints ``PF1E_LLM_BASE_URL=...`` and ``PF1E_LLM_MODEL=...`` lines for the
    agent, and runs until Ctrl-C or SIGTERM (exit status 0). Exit status 2 on bad arguments or
    when the server cannot start.
    """
    import argparse

    p = argparse.ArgumentParser(
        prog="python -m pf1e_gym.llm.local_model",
        description="Serve a tiny random-weight model with llama.cpp's llama-server.",
    )
    p.add_argument("--binary", help="llama-server binary (default $PF1E_LLAMA_SERVER)")
    p.add_argument(
        "--port",
        type=int,
        default=8080,
        help="TCP port on 127.0.0.1 (default 8080; 0 = a free one)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the random weights")
    p.add_argument("--n-ctx", type=int, default=DEFAULT_N_CTX, help="context size in tokens")
    p.add_argument("--model-out", help="where to write the GGUF model (default: a temp file)")
    args = p.parse_args(argv)
    # Ctrl-C and SIGTERM both stop the server and remove the temporary model (a shell may have
    # started us with SIGINT ignored).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with tempfile.TemporaryDirectory(prefix="pf1e-tiny-model-") as tmp:
        out = Path(args.model_out) if args.model_out else Path(tmp) / "tiny.gguf"
        try:
            write_tiny_model(out, seed=args.seed, n_ctx=args.n_ctx)
            server = LocalLlamaServer(out, binary=args.binary, n_ctx=args.n_ctx, port=args.port)
            server.start()
        except (ValueError, LlamaServerError) as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
        try:
            print(f"PF1E_LLM_BASE_URL={server.base_url}")
            print(f"PF1E_LLM_MODEL={server.model}", flush=True)
            print("serving; Ctrl-C to stop", file=sys.stderr)
            while server.running:
                time.sleep(0.5)
            print(f"llama-server exited:\n{server._log_tail()}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            return 0
        finally:
            server.close()


if __name__ == "__main__":
    sys.exit(main())
