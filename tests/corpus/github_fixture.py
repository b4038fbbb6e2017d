#!/usr/bin/env python3
"""Local stand-in for the part of GitHub the corpus miner uses, for tests.

Serves on 127.0.0.1 (ephemeral ports):
  * an HTTP server speaking GitHub's REST API subset: repository search with
    Link-header pagination, and branch heads (Accept: application/vnd.github.sha);
  * a git:// listener that runs `git daemon --inetd` for each connection and
    relays it, so that a daemon can be killed in the middle of a clone.

Fixed faults per page (legacy options): a 403 rate-limit response with an
X-RateLimit-Reset time, a 502 (each once), a malformed JSON page (always), a
slow first response.

Faults per request: "faults" is a list of rules {"kind": K, "match": TEXT,
"times": N (default 1)}; a request whose target (API: path?query, git:
"git:/owner/name.git") contains TEXT gets the first rule of its channel with
times left. "random_faults": {"seed": S, "rate": P, "max": M, "kinds": [...]}
gives each request without a rule fault probability P (at most M faults), the
kind drawn from those of its channel. Kinds:
  API: cut_body (Content-Length, half the body, then the connection closes),
       cut_unframed (no Content-Length: a close-delimited body cut in half),
       chunked_truncated (chunked, half the body, no final chunk),
       too_many_requests (429 + Retry-After), bad_gateway (502),
       secondary_retry_after (403 + Retry-After + GitHub's secondary message),
       secondary_reset (403 + X-RateLimit-Remaining: 0 + X-RateLimit-Reset),
       secondary_bare (403 with the message only: a client waits a minute);
  git: git_kill (the daemon's process group is SIGKILLed once the pack starts
       flowing; the git port then refuses connections for "git_down_seconds").
"retry_after" (default 1) is the seconds such responses ask for.

Every request is appended to a JSON-lines log: API requests with "path",
"query", headers and "fault"; git connections with "channel": "git".

Usage: github_fixture.py --config CONFIG.json --ready READY.json --log LOG.jsonl
CONFIG: {"repos_root": DIR, "repos": [{"full_name": "o/n", "path": "o/n.git",
  "default_branch": "master", "stars": 1, "forks": 0, "license": "MIT"}, ...],
  "per_page": 2, "token": null | "secret",
  "rate_limit_page": N, "rate_limit_reset_in": SECONDS, "bad_gateway_page": N,
  "malformed_page": N, "slow_page": N, "slow_seconds": S, "faults": [...],
  "random_faults": {...}, "retry_after": S, "git_down_seconds": S}
READY is written once both servers accept connections: {"api": URL, "git": URL}.
"""
import argparse
import http.server
import json
import math
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse

API_FAULTS = ["cut_body", "cut_unframed", "chunked_truncated", "too_many_requests", "bad_gateway",
              "secondary_retry_after", "secondary_reset", "secondary_bare"]
GIT_FAULTS = ["git_kill"]
SECONDARY = ("You have exceeded a secondary rate limit. Please wait a few minutes before you try again. "
             "If you reach out to GitHub Support for help, please include the request ID.")


def wait_listening(port, seconds=10):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.05)
    return False


class State:
    def __init__(self, config, log_path):
        self.config = config
        self.log_path = log_path
        self.git_url = ""
        self.lock = threading.Lock()
        self.faults_done = set()
        self.rules = [dict(r, times=r.get("times", 1)) for r in config.get("faults", [])]
        rnd = config.get("random_faults") or {}
        self.rng = random.Random(rnd.get("seed", 0))
        self.rate = float(rnd.get("rate", 0))
        self.max_random = int(rnd.get("max", 1 << 30))
        self.random_kinds = rnd.get("kinds", API_FAULTS + GIT_FAULTS)
        self.random_drawn = 0
        self.git_down_until = 0.0

    def once(self, name):
        with self.lock:
            if name in self.faults_done:
                return False
            self.faults_done.add(name)
            return True

    def draw(self, kinds, target):
        """The fault for one request of the channel whose kinds are `kinds`, or None."""
        with self.lock:
            for rule in self.rules:
                if rule["times"] > 0 and rule["kind"] in kinds and rule.get("match", "") in target:
                    rule["times"] -= 1
                    return rule["kind"]
            if self.rate <= 0:
                return None
            # Draw for every request so the schedule depends only on the seed
            # and the order of requests.
            hit = self.rng.random() < self.rate
            choice = self.rng.choice([k for k in self.random_kinds if k in kinds] or [None])
            if hit and choice and self.random_drawn < self.max_random:
                self.random_drawn += 1
                return choice
            return None

    def log(self, entry):
        entry["time"] = time.time()
        with self.lock, open(self.log_path, "a") as f:
            f.write(json.dumps(entry) + "\n")


def make_handler(state):
    cfg = state.config
    retry_after = int(cfg.get("retry_after", 1))

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):  # keep test output quiet
            pass

        def send_json(self, code, body, headers=None, raw=None, fault=None, content_type="application/json"):
            data = raw if raw is not None else json.dumps(body).encode()
            if fault not in ("cut_body", "cut_unframed", "chunked_truncated"):
                fault = None
            self.send_response(code)
            self.send_header("Content-Type", content_type)
            if fault == "chunked_truncated":
                self.send_header("Transfer-Encoding", "chunked")
            elif fault == "cut_unframed":
                self.send_header("Connection", "close")
            else:
                self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            if fault is None:
                self.wfile.write(data)
                return
            half = data[: len(data) // 2]
            if fault == "chunked_truncated":
                self.wfile.write(b"%x\r\n%s\r\n" % (len(half), half))
            else:
                self.wfile.write(half)
            self.wfile.flush()
            self.close_connection = True

        def refuse(self, fault):
            """Answers a rate-limit or server-error fault; False for body faults."""
            if fault == "bad_gateway":
                self.send_json(502, None, raw=b"<html>502 Bad Gateway</html>", content_type="text/html")
            elif fault == "too_many_requests":
                self.send_json(429, {"message": "API rate limit exceeded"}, {"Retry-After": str(retry_after)})
            elif fault == "secondary_retry_after":
                self.send_json(403, {"message": SECONDARY}, {"Retry-After": str(retry_after)})
            elif fault == "secondary_reset":
                reset = int(time.time()) + retry_after
                self.send_json(403, {"message": SECONDARY},
                               {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(reset)})
            elif fault == "secondary_bare":
                self.send_json(403, {"message": SECONDARY})
            else:
                return False
            return True

        def do_GET(self):
            url = urllib.parse.urlsplit(self.path)
            query = urllib.parse.parse_qs(url.query)
            fault = state.draw(API_FAULTS, self.path)
            state.log({"path": url.path, "query": query,
                       "authorization": self.headers.get("Authorization"),
                       "accept": self.headers.get("Accept"),
                       "user_agent": self.headers.get("User-Agent"), "fault": fault})
            token = cfg.get("token")
            if token and self.headers.get("Authorization") != "Bearer " + token:
                return self.send_json(401, {"message": "Bad credentials"})
            if self.refuse(fault):
                return
            if url.path == "/search/repositories":
                return self.search(query, fault)
            parts = url.path.strip("/").split("/")
            if len(parts) == 5 and parts[0] == "repos" and parts[3] == "commits":
                return self.branch_head("/".join(parts[1:3]), urllib.parse.unquote(parts[4]), fault)
            self.send_json(404, {"message": "Not Found"})

        def search(self, query, fault):
            if not query.get("q"):
                return self.send_json(422, {"message": "Validation Failed"})
            per_page = int(cfg.get("per_page", 30))
            page = int(query.get("page", ["1"])[0])
            repos = cfg["repos"]
            last = max(1, math.ceil(len(repos) / per_page))
            port = self.server.server_address[1]

            def page_url(n):
                q = urllib.parse.urlencode({"q": query["q"][0], "per_page": per_page, "page": n})
                return f"http://127.0.0.1:{port}/search/repositories?{q}"

            links = []
            if page < last:
                links += [f'<{page_url(page + 1)}>; rel="next"', f'<{page_url(last)}>; rel="last"']
            if page > 1:
                links += [f'<{page_url(1)}>; rel="first"', f'<{page_url(page - 1)}>; rel="prev"']
            headers = {"Link": ", ".join(links)} if links else {}
            headers["X-RateLimit-Limit"] = "30"
            headers["X-RateLimit-Remaining"] = "29"

            if page == cfg.get("slow_page") and state.once("slow"):
                time.sleep(float(cfg.get("slow_seconds", 30)))
            if page == cfg.get("rate_limit_page") and state.once("rate_limit"):
                reset = int(time.time()) + int(cfg.get("rate_limit_reset_in", 1))
                return self.send_json(403, {"message": "API rate limit exceeded for 127.0.0.1."},
                                      {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(reset)})
            if page == cfg.get("bad_gateway_page") and state.once("bad_gateway"):
                return self.send_json(502, None, raw=b"<html>502 Bad Gateway</html>")
            if page == cfg.get("malformed_page"):
                return self.send_json(200, None, headers, raw=b'{"total_count": 3, "items": [{"full_')

            items = []
            for r in repos[(page - 1) * per_page: page * per_page]:
                owner, name = r["full_name"].split("/")
                items.append({
                    "full_name": r["full_name"], "name": name, "owner": {"login": owner},
                    "clone_url": state.git_url + r["path"],
                    "default_branch": r.get("default_branch", "master"),
                    "stargazers_count": r.get("stars", 0), "forks_count": r.get("forks", 0),
                    "license": {"spdx_id": r["license"]} if r.get("license") else None,
                })
            self.send_json(200, {"total_count": len(repos), "incomplete_results": False,
                                 "items": items}, headers, fault=fault)

        def branch_head(self, full_name, branch, fault):
            for r in cfg["repos"]:
                if r["full_name"] == full_name:
                    git_dir = cfg["repos_root"] + "/" + r["path"]
                    out = subprocess.run(["git", "--git-dir", git_dir, "rev-parse", "refs/heads/" + branch],
                                         capture_output=True, text=True)
                    if out.returncode != 0:
                        break
                    return self.send_json(200, None, raw=(out.stdout.strip() + "\n").encode(), fault=fault,
                                          content_type="application/vnd.github.sha")
            self.send_json(422, {"message": "No commit found for SHA: " + branch})

    return Handler


def recv_exact(conn, n):
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            raise ConnectionError("client closed")
        data += chunk
    return data


def serve_git(state, conn):
    """Relays one git:// connection to a `git daemon --inetd` of its own."""
    proc = None
    try:
        head = recv_exact(conn, 4)
        request = recv_exact(conn, int(head, 16) - 4)
        target = "git:" + request.split(b"\0")[0].decode(errors="replace").split(" ", 1)[-1]
        fault = state.draw(GIT_FAULTS, target)
        state.log({"channel": "git", "path": target, "fault": fault})
        root = state.config["repos_root"]
        proc = subprocess.Popen(["git", "daemon", "--inetd", "--export-all", "--log-destination=none",
                                 f"--base-path={root}", root],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        proc.stdin.write(head + request)
        proc.stdin.flush()

        def upstream():
            try:
                while True:
                    data = conn.recv(65536)
                    if not data:
                        break
                    proc.stdin.write(data)
                    proc.stdin.flush()
                proc.stdin.close()
            except (OSError, ValueError):
                pass

        threading.Thread(target=upstream, daemon=True).start()
        tail = b""  # the last bytes sent, so "PACK" is found across reads
        while True:
            data = os.read(proc.stdout.fileno(), 65536)
            if not data:
                break
            if fault == "git_kill":
                at = (tail + data).find(b"PACK")
                if at >= 0:
                    # Up to the pack header and no further: the daemon dies mid-pack.
                    conn.sendall(data[: max(0, at + 12 - len(tail))])
                    os.killpg(proc.pid, signal.SIGKILL)
                    with state.lock:
                        state.git_down_until = time.time() + float(state.config.get("git_down_seconds", 0.3))
                    break
                tail = (tail + data)[-3:]
            conn.sendall(data)
    except (OSError, ValueError):
        pass
    finally:
        try:
            conn.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        conn.close()
        if proc:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
            proc.wait()


def git_listener(state, port):
    """Accepts git:// connections; while the daemon is "down", the port refuses them."""
    listener = None
    while True:
        with state.lock:
            down = time.time() < state.git_down_until
        if down and listener:
            listener.close()
            listener = None
        if not down and not listener:
            listener = socket.socket()
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind(("127.0.0.1", port))
            listener.listen(16)
            listener.settimeout(0.05)
        if not listener:
            time.sleep(0.02)
            continue
        try:
            conn, _ = listener.accept()
        except socket.timeout:
            continue
        conn.settimeout(None)
        threading.Thread(target=serve_git, args=(state, conn), daemon=True).start()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    ap.add_argument("--ready", required=True)
    ap.add_argument("--log", required=True)
    args = ap.parse_args()
    with open(args.config) as f:
        config = json.load(f)

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.signal(signal.SIGINT, lambda *_: sys.exit(0))
    state = State(config, args.log)
    with socket.socket() as s:  # an ephemeral port for the git listener
        s.bind(("127.0.0.1", 0))
        git_port = s.getsockname()[1]
    threading.Thread(target=git_listener, args=(state, git_port), daemon=True).start()
    if not wait_listening(git_port):
        print("git listener did not start", file=sys.stderr)
        sys.exit(1)
    state.git_url = f"git://127.0.0.1:{git_port}/"

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), make_handler(state))
    server.daemon_threads = True
    api = f"http://127.0.0.1:{server.server_address[1]}"
    tmp = args.ready + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"api": api, "git": state.git_url}, f)
    os.replace(tmp, args.ready)
    server.serve_forever()


if __name__ == "__main__":
    main()
