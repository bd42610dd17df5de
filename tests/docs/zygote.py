"""Run ``lexprobe`` commands in forks of one process that has already imported torch, transformers and NLTK.

Why: the documents hold about a hundred ``lexprobe`` commands, and a new interpreter spends 5-8 s of CPU importing
torch, transformers, sentence-transformers, NLTK and matplotlib before a command does anything; a command of the
doc test (a small sample) takes about as long again. The server imports them once and reads WordNet (nothing else: no
model, no dataset; torch's thread pool not started), then forks a child per command, which runs
``lexprobe.cli.main`` with the command's arguments, folder, environment and standard streams (passed as file
descriptors), so each command starts as in a new process, WordNet already read.

The client is this file run by a bare interpreter (``python -S zygote.py SOCKET ARGS...``, standard library only,
~20 ms): the ``lexprobe`` of the doc test's PATH. It exits with the command's exit code.
"""

from __future__ import annotations

import json
import os
import socket
import struct
import sys

#: what the server imports before it forks (import only: importing torch starts no thread)
PRELOAD = ("torch", "transformers", "sentence_transformers", "nltk", "numpy", "scipy.stats", "matplotlib.pyplot",
           "pydantic", "httpx", "lexprobe.cli", "lexprobe.api")
_LENGTH = struct.Struct("!I")


def _recv_exact(conn: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            raise ConnectionError("the other end closed the connection")
        data += chunk
    return data


def client(path: str, argv: list[str]) -> int:
    """Send ``argv``, this folder, this environment and standard streams to the server at ``path``; its exit code."""
    request = json.dumps({"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ)}).encode()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(path)
        socket.send_fds(conn, [_LENGTH.pack(len(request))], [0, 1, 2])
        conn.sendall(request)
        return struct.unpack("!i", _recv_exact(conn, 4))[0]


def _child(request: dict, fds: list[int]) -> int:
    for target, fd in zip((0, 1, 2), fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.argv = ["lexprobe", *request["argv"]]
    try:
        from lexprobe.cli import main

        code = main(request["argv"])
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
        if not isinstance(exit_.code, (int, type(None))):
            print(exit_.code, file=sys.stderr)
    except BaseException:  # noqa: BLE001 - a crash is the command's exit 1 with its traceback, as in a process
        import traceback

        traceback.print_exc()
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    return int(code or 0)


def _reply(conn: socket.socket, pid: int) -> None:
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    try:
        conn.sendall(struct.pack("!i", code))
    finally:
        conn.close()


def _load_wordnet() -> None:
    """WordNet, read once (``load_wordnet`` keeps it for the process, so its forks have it; ~9 s a command
    otherwise): every document reads the same WordNet (``LEXPROBE_NLTK_DATA``). Its data files are closed, so each
    child opens its own (a file offset shared between processes would mix their reads)."""
    from lexprobe.data.wordnet import load_wordnet
    from lexprobe.errors import LexprobeError

    try:
        reader = load_wordnet()
    except LexprobeError:
        return  # no WordNet here: each command says so, as it would in a new process
    for data_file in reader._data_file_map.values():
        data_file.close()
    reader._data_file_map.clear()


def serve(path: str) -> None:
    """Import ``PRELOAD``, then answer each connection with a forked child running its command."""
    import importlib
    import threading

    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # as lexprobe.cli.main sets it, before torch loads
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    for module in PRELOAD:
        importlib.import_module(module)
    _load_wordnet()
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(16)
    print("ready", flush=True)
    while True:
        conn, _ = server.accept()
        header, fds, _, _ = socket.recv_fds(conn, _LENGTH.size, 3)
        request = json.loads(_recv_exact(conn, _LENGTH.unpack(header)[0]))
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            server.close()
            conn.close()
            os._exit(_child(request, fds))
        for fd in fds:
            os.close(fd)
        # a command may itself start ``lexprobe`` (a script of a document does): each waits on a thread of its own
        threading.Thread(target=_reply, args=(conn, pid), daemon=True).start()


if __name__ == "__main__":
    if sys.argv[1] == "--serve":
        serve(sys.argv[2])
    else:
        sys.exit(client(sys.argv[1], sys.argv[2:]))
