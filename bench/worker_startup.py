#!/usr/bin/env python3
"""Start-up time of a driver worker: fork/exec until it answers a ping.

Usage: bench/worker_startup.py [-n N] BINARY [ARGS...]
  e.g. bench/worker_startup.py build/cli/clgen-worker
       bench/worker_startup.py OLD/clgen worker      (the worker mode before clgen-worker)
Speaks the driver's protocol (4-byte little-endian length + JSON) on fds 3/4
and prints the median, mean, min and max over N starts in milliseconds.
"""
import json
import os
import statistics
import struct
import subprocess
import sys
import time


def frame(obj):
    data = json.dumps(obj).encode()
    return struct.pack("<I", len(data)) + data


def read_exact(fd, n):
    out = b""
    while len(out) < n:
        chunk = os.read(fd, n - len(out))
        if not chunk:
            raise RuntimeError("worker closed its pipe")
        out += chunk
    return out


def one_start(argv):
    req_r, req_w = os.pipe()
    resp_r, resp_w = os.pipe()
    start = time.perf_counter()
    # The child dups its two ends onto 3 and 4 (dup2 makes them inheritable;
    # every other fd of ours is close-on-exec, so close_fds can stay off).
    proc = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        close_fds=False,
        preexec_fn=lambda: (os.dup2(req_r, 10), os.dup2(resp_w, 11), os.dup2(10, 3), os.dup2(11, 4)))
    os.close(req_r)
    os.close(resp_w)
    os.write(req_w, frame({"op": "ping"}))
    (n,) = struct.unpack("<I", read_exact(resp_r, 4))
    reply = json.loads(read_exact(resp_r, n))
    elapsed = time.perf_counter() - start
    assert reply.get("ok"), reply
    os.write(req_w, frame({"op": "exit"}))
    os.close(req_w)
    proc.wait()
    os.close(resp_r)
    return elapsed * 1000


def main():
    args = sys.argv[1:]
    n = 20
    if len(args) >= 2 and args[0] == "-n":
        n = int(args[1])
        args = args[2:]
    if not args:
        sys.exit(__doc__)
    one_start(args)  # warm the page cache
    times = [one_start(args) for _ in range(n)]
    print(f"{' '.join(args)}: median {statistics.median(times):.1f} ms, "
          f"mean {statistics.mean(times):.1f} ms, min {min(times):.1f} ms, "
          f"max {max(times):.1f} ms over {n} starts")


if __name__ == "__main__":
    main()
