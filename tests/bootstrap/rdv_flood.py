#!/usr/bin/env python3
"""Test helper: opens COUNT idle TCP connections to 127.0.0.1:PORT and holds them (nothing is sent).

usage: rdv_flood.py PORT COUNT HOLD_SECONDS READY_FILE
Writes "connected N" to READY_FILE once every connection has completed or failed (at most ~4 s), then
holds the sockets for HOLD_SECONDS and exits. Connections the server closes are not reopened.
"""
import os
import resource
import select
import socket
import sys
import time


def main():
    port, count, hold, ready = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = count + 64
    if soft < want:
        top = want if hard == resource.RLIM_INFINITY else min(want, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (top, hard))
    socks = []
    for _ in range(count):
        try:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        except OSError:
            break  # out of descriptors here: hold what we have
        s.setblocking(False)
        try:
            s.connect(("127.0.0.1", port))
        except BlockingIOError:
            pass
        except OSError:
            s.close()
            continue
        socks.append(s)
    # Wait for the handshakes: those beyond a full accept queue complete when the server accepts.
    poller = select.poll()
    pending = {}
    for s in socks:
        poller.register(s.fileno(), select.POLLOUT)
        pending[s.fileno()] = s
    connected = 0
    deadline = time.monotonic() + 4.0
    while pending and time.monotonic() < deadline:
        for fd, _ in poller.poll(100):
            s = pending.pop(fd, None)
            if s is None:
                continue
            poller.unregister(fd)
            if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:
                connected += 1
    tmp = ready + ".tmp"
    with open(tmp, "w") as f:
        f.write("connected %d\n" % connected)
    os.rename(tmp, ready)
    time.sleep(hold)


if __name__ == "__main__":
    main()
