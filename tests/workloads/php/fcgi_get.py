#!/usr/bin/python3
"""Ask a FastCGI server (php-fpm) for one script, again and again.

fcgi_get.py SOCKET SCRIPT SECONDS: requests SCRIPT (an absolute path)
from the server listening on the unix socket SOCKET, one after the
other, for SECONDS (at least once); prints the number of answers and each distinct
"served by PID" line. Standard library only: the FastCGI records
(version 1: BEGIN_REQUEST as a responder, PARAMS, an empty STDIN; the
answer in STDOUT records until END_REQUEST) written out by hand.
"""
import socket
import struct
import sys
import time

BEGIN, END, PARAMS, STDIN, STDOUT = 1, 3, 4, 5, 6


def record(kind, body, req=1):
    return struct.pack(">BBHHBx", 1, kind, req, len(body), 0) + body


def pair(name, value):
    def size(n):
        return bytes([n]) if n < 128 else struct.pack(">I", n | 0x80000000)
    return size(len(name)) + size(len(value)) + name + value


def ask(path, script):
    params = {"SCRIPT_FILENAME": script, "SCRIPT_NAME": script, "REQUEST_METHOD": "GET",
              "QUERY_STRING": "", "SERVER_PROTOCOL": "HTTP/1.1", "GATEWAY_INTERFACE": "CGI/1.1"}
    body = b"".join(pair(k.encode(), v.encode()) for k, v in params.items())
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall(record(BEGIN, struct.pack(">HB5x", 1, 0)) + record(PARAMS, body) +
              record(PARAMS, b"") + record(STDIN, b""))
    data, out = b"", b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    while len(data) >= 8:
        _, kind, _, n, pad = struct.unpack(">BBHHBx", data[:8])
        if kind == STDOUT:
            out += data[8:8 + n]
        data = data[8 + n + pad:]
        if kind == END:
            break
    return out.decode(errors="replace")


def main():
    path, script, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    end = time.monotonic() + seconds
    answers, workers = 0, set()
    while True:
        for line in ask(path, script).splitlines():
            if line.startswith("served by "):
                answers += 1
                workers.add(line)
        if time.monotonic() >= end:
            break
    print("answers=%d" % answers)
    for w in sorted(workers):
        print(w)


main()
