#!/usr/bin/env python3
"""Local stand-in for the part of GitHub the corpus miner uses, for tests.

Serves on 127.0.0.1 (ephemeral ports):
  * an HTTP server speaking GitHub's REST API subset: repository search with
    Link-header pagination, and branch heads (Accept: application/vnd.github.sha);
  * `git daemon` exporting bare repositories, which the search results point to.

Faults are injected per page as configured: a 403 rate-limit response with an
X-RateLimit-Reset time, a 502 (each once), a malformed JSON page (always), a
slow first response. Every request is appended to a JSON-lines log.

Usage: github_fixture.py --config CONFIG.json --ready READY.json --log LOG.jsonl
CONFIG: {"repos_root": DIR, "repos": [{"full_name": "o/n", "path": "o/n.git",
  "default_branch": "master", "stars": 1, "forks": 0, "license": "MIT"}, ...],
  "per_page": 2, "token": null | "secret",
  "rate_limit_page": N, "rate_limit_reset_in": SECONDS, "bad_gateway_page": N,
  "malformed_page": N, "slow_page": N, "slow_seconds": S}
READY is written once both servers accept connections: {"api": URL, "git": URL}.
"""
import argparse
import http.server
import json
import math
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
    def __init__(self, config, log_path, git_url):
        self.config = config
        self.log_path = log_path
        self.git_url = git_url
        self.lock = threading.Lock()
        self.faults_done = set()

    def once(self, name):
        with self.lock:
            if name in self.faults_done:
                return False
            self.faults_done.add(name)
            return True

    def log(self, entry):
        with self.lock, open(self.log_path, "a") as f:
            f.write(json.dumps(entry) + "\n")


def make_handler(state):
    cfg = state.config

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):  # keep test output quiet
            pass

        def send_json(self, code, body, headers=None, raw=None):
            data = raw if raw is not None else json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            url = urllib.parse.urlsplit(self.path)
            query = urllib.parse.parse_qs(url.query)
            state.log({"path": url.path, "query": query,
                       "authorization": self.headers.get("Authorization"),
                       "accept": self.headers.get("Accept"),
                       "user_agent": self.headers.get("User-Agent")})
            token = cfg.get("token")
            if token and self.headers.get("Authorization") != "Bearer " + token:
                return self.send_json(401, {"message": "Bad credentials"})
            if url.path == "/search/repositories":
                return self.search(query)
            parts = url.path.strip("/").split("/")
            if len(parts) == 5 and parts[0] == "repos" and parts[3] == "commits":
                return self.branch_head("/".join(parts[1:3]), urllib.parse.unquote(parts[4]))
            self.send_json(404, {"message": "Not Found"})

        def search(self, query):
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
                                 "items": items}, headers)

        def branch_head(self, full_name, branch):
            for r in cfg["repos"]:
                if r["full_name"] == full_name:
                    git_dir = cfg["repos_root"] + "/" + r["path"]
                    out = subprocess.run(["git", "--git-dir", git_dir, "rev-parse", "refs/heads/" + branch],
                                         capture_output=True, text=True)
                    if out.returncode != 0:
                        break
                    data = (out.stdout.strip() + "\n").encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/vnd.github.sha")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
            self.send_json(422, {"message": "No commit found for SHA: " + branch})

    return Handler


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    ap.add_argument("--ready", required=True)
    ap.add_argument("--log", required=True)
    args = ap.parse_args()
    with open(args.config) as f:
        config = json.load(f)

    git_port = free_port()
    daemon = subprocess.Popen(["git", "daemon", "--reuseaddr", "--export-all", "--listen=127.0.0.1",
                               f"--port={git_port}", f"--base-path={config['repos_root']}",
                               config["repos_root"]],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stop(*_):
        daemon.terminate()
        try:
            daemon.wait(5)
        except subprocess.TimeoutExpired:
            daemon.kill()
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    if not wait_listening(git_port):
        print("git daemon did not start", file=sys.stderr)
        stop()

    state = State(config, args.log, f"git://127.0.0.1:{git_port}/")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), make_handler(state))
    server.daemon_threads = True
    api = f"http://127.0.0.1:{server.server_address[1]}"
    tmp = args.ready + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"api": api, "git": state.git_url}, f)
    import os
    os.replace(tmp, args.ready)
    try:
        server.serve_forever()
    finally:
        stop()


if __name__ == "__main__":
    main()
