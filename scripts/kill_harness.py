#!/usr/bin/env python3
"""Random SIGKILL harness for clgen's resumable stages (scripts/kill-harness.sh).

For a stage: one uninterrupted reference run on a fresh copy of the stage's
input workspace, then TRIALS seeded trials of: a fresh copy, start the stage,
SIGKILL it at a random moment within the reference's duration, run it again to
completion, and compare the database with the reference (the meaningful
columns of each table, sorted; ids and timings aside) and PRAGMA
integrity_check. Prints a table of trials and passes per stage; exit 1 when a
trial failed. docs/BENCHMARKS.md ("Kill harness") records the numbers.
"""
import argparse
import hashlib
import json
import os
import random
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REFERENCE_TIMEOUT = 300  # seconds; a stage's reference run here takes under 15
STAGES = ["corpus-add", "mine-github", "preprocess", "train", "drive", "sample"]

# Per stage: table -> query of its meaningful columns, sorted.
CORPUS_QUERIES = {
    "content_files": "SELECT sha256, size, language, text FROM content_files ORDER BY 1",
    "content_origins": "SELECT r.source, o.commit_sha, o.path, o.sha256, o.role FROM content_origins o "
                       "JOIN repositories r ON r.id = o.repository_id ORDER BY 1, 2, 3, 4, 5",
    "skipped": "SELECT r.source, s.commit_sha, s.path, s.reason FROM skipped s "
               "JOIN repositories r ON r.id = s.repository_id ORDER BY 1, 2, 3, 4",
    "repositories": "SELECT source, kind, commit_sha, owner, name, stars, forks, license, domain "
                    "FROM repositories ORDER BY 1",
}
PREPROCESS_QUERIES = {
    "preprocessed": "SELECT content_sha256, preprocessor_version, status, category, reason, normalized_text, "
                    "normalized_sha256, instruction_count FROM preprocessed ORDER BY 1, 2",
}
TRAIN_QUERIES = {
    "training_metrics": "SELECT model_id, epoch, train_loss, valid_loss, valid_perplexity, learning_rate, tokens "
                        "FROM training_metrics ORDER BY 1, 2",
    # A killed run leaves its own row, which the rerun closes ('interrupted');
    # the last row of each model must match the reference's single completed
    # run, and no row may stay 'running'.
    "training_runs": "SELECT model_id, config, corpus_sha256, vocabulary, vocab_size, device, end_epoch, status "
                     "FROM training_runs t WHERE id = (SELECT MAX(id) FROM training_runs u "
                     "WHERE u.model_id = t.model_id) ORDER BY 1",
    "training_runs still running": "SELECT COUNT(*) FROM training_runs WHERE status = 'running'",
    # Resumed runs write the checkpoints after the resume point again.
    "checkpoints": "SELECT DISTINCT model_id, epoch, batch, reason FROM checkpoints ORDER BY 1, 2, 3, 4",
}
DRIVE_QUERIES = {
    "kernel_sources": "SELECT sha256, text, origin FROM kernel_sources ORDER BY 1",
    # Timings (the *_ns columns, created_at) and ids aside; the number of
    # profiled repetitions stands for the timing arrays.
    "runs": "SELECT kernel_sha256, kernel_name, origin, platform, device, build_options, global_size, "
            "requested_local_size, local_size, outcome, message, transferred_bytes, repetitions, "
            "json_array_length(transfer_ns_runs), json_array_length(kernel_ns_runs), kernel_local_mem, "
            "kernel_private_mem, kernel_work_group_size, seed, scalar_value FROM runs "
            "ORDER BY 1, 2, 3, 4, 5, 6, 7, 8",
}

SAMPLE_QUERIES = {
    # Every stored draw and its verdict, by its DrawKey and sample_index; ids
    # and the timings (sample_seconds, filter_seconds, created_at) aside.
    "samples": "SELECT model_id, args, seed, shard, temperature, top_k, top_p, sample_index, text, normalized_text, "
               "normalized_sha256, status, category, reason, tokens, instruction_count, target, target_features "
               "FROM samples ORDER BY 1, 2, 3, 4, 5, 6, 7, 8",
}

TRAIN_CONFIG = """# kill harness: a small model trained in seconds, with mid-epoch checkpoints
[vocabulary]
type = "char"
[model]
embedding_size = 16
hidden_size = 48
layers = 2
dropout = 0.1
[training]
epochs = 3
batch_size = 8
sequence_length = 32
max_tokens = 24000
max_file_chars = 0
validation_fraction = 0.2
checkpoint_every_batches = 7
[preview]
samples = 0
"""

SAMPLE_ACCEPTED = "120"  # -n of the sample stage
SAMPLE_ARGS = "float*,float*,float*,int"  # the prototype of tests/data/sampler/corpus

DRIVE_KERNELS = ["saxpy.cl", "writes_constant.cl", "compile_error.cl", "struct_arg.cl", "writes_nothing.cl",
                 "two_kernels.cl", "args_mix.cl", "matmul_2d.cl", "reads_only.cl", "front_end_crash.cl",
                 "offset_copy.cl"]


def log(msg):
    print(msg, flush=True)


def run(argv, env=None, check=True, cwd=None, timeout=None):
    """The finished process; a run past `timeout` seconds is SIGKILLed and reported as exit code "hung"."""
    try:
        r = subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired as e:
        r = subprocess.CompletedProcess(argv, f"hung (killed after {timeout:.0f} s)", e.stdout or "", e.stderr or "")
        if isinstance(r.stderr, bytes):
            r.stderr = r.stderr.decode("utf-8", "replace")
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {r.returncode}: {r.stderr[-2000:]}")
    return r


def table_names(db):
    return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def snapshot(db_path, queries):
    """(integrity_check result, {table: rows}) of the workspace database."""
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        integrity = db.execute("PRAGMA integrity_check").fetchall()
        names = table_names(db)
        rows = {}
        for table, sql in queries.items():
            rows[table] = db.execute(sql).fetchall() if table.split()[0] in names else None
        return integrity, rows
    finally:
        db.close()


def killed_progress(db_path, sql):
    """How far the killed run got, as the stage's progress query reads it."""
    if not sql or not os.path.exists(db_path):
        return "no database yet"
    try:
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
        try:
            row = db.execute(sql).fetchone()
        finally:
            db.close()
        return str(row[0]) if row else "nothing stored"
    except sqlite3.Error as e:
        return f"nothing stored ({e})"


def timed_run(argv, env, db_path, work_sql, timeout):
    """Runs argv to its end; returns (CompletedProcess, seconds, seconds until work_sql first
    counted a stored result, or None): the reference run, whose start-up (loading LibTorch,
    PoCL, opening the database) takes a second or more here."""
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = None
    while proc.poll() is None and time.monotonic() - t0 < timeout:
        if first is None and work_sql and os.path.exists(db_path):
            try:
                db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=0.1)
                try:
                    if db.execute(work_sql).fetchone()[0] > 0:
                        first = time.monotonic() - t0
                finally:
                    db.close()
            except sqlite3.Error:
                pass
        time.sleep(0.02)
    if proc.poll() is None:
        proc.kill()
    out, err = proc.communicate()
    seconds = time.monotonic() - t0
    code = proc.returncode if seconds < timeout else f"hung (killed after {timeout:.0f} s)"
    return subprocess.CompletedProcess(argv, code, out, err), seconds, first


def first_difference(a, b):
    for table in sorted(set(a) | set(b)):
        ra, rb = a.get(table), b.get(table)
        if ra == rb:
            continue
        if ra is None or rb is None:
            return f"{table}: table missing in {'reference' if ra is None else 'trial'}"
        extra, missing = [r for r in rb if r not in ra], [r for r in ra if r not in rb]
        return (f"{table}: {len(ra)} reference rows, {len(rb)} trial rows; first missing "
                f"{str(missing[:1])[:300]}, first extra {str(extra[:1])[:300]}")
    return None


def file_digests(root, relative_dirs, skip_temporaries=True):
    """sha256 of every file under the given directories of a workspace (temp files aside unless asked)."""
    out = {}
    for rel in relative_dirs:
        base = os.path.join(root, rel)
        for dirpath, _, files in os.walk(base):
            for f in files:
                if skip_temporaries and ".tmp." in f:
                    continue
                p = os.path.join(dirpath, f)
                out[os.path.relpath(p, root)] = checkpoint_digest(p) if f.endswith(".pt") else file_digest(p)
    return out


def file_digest(path):
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


def checkpoint_digest(path):
    """The sorted digests of a LibTorch archive's tensor blobs: LibTorch orders the
    optimizer state by parameter address, so equal checkpoints differ in byte order."""
    with zipfile.ZipFile(path) as z:
        blobs = sorted(hashlib.sha256(z.read(n)).hexdigest() for n in z.namelist() if "/data/" in n)
    return hashlib.sha256("\n".join(blobs).encode()).hexdigest()


class Stage:
    """One stage: builds its input workspace once, then runs the command on copies."""

    queries = {}
    compare_files = []  # workspace subdirectories compared byte for byte
    compare_temporaries = False  # whether a temporary file left there is a difference
    env = None
    warm_up = False  # run once unmeasured first (caches that make the first run slower)
    counted = None  # the table of the stage's results: its first row marks the end of start-up
    progress = None  # SQL: how far a killed run got (default: the counted table's rows)

    def progress_sql(self):
        return self.progress or f"SELECT COUNT(*) || ' rows of {self.counted}' FROM {self.counted}"

    def first_result_sql(self):
        return f"SELECT COUNT(*) FROM {self.counted}"

    def __init__(self, clgen, work):
        self.clgen = clgen
        self.work = work

    def setup(self):
        """Creates self.base (the input workspace) and whatever the command reads."""
        self.base = os.path.join(self.work, "base")
        os.makedirs(self.base, exist_ok=True)

    def argv(self, ws):
        raise NotImplementedError

    def teardown(self):
        pass


def make_many_files(root, n):
    os.makedirs(root, exist_ok=True)
    for i in range(n):
        sub = os.path.join(root, f"d{i % 17}")
        os.makedirs(sub, exist_ok=True)
        with open(os.path.join(sub, f"k{i}.cl"), "w") as f:
            f.write(f"kernel void K{i}(global int* a) {{ a[get_global_id(0)] = {i} * {i % 7}; }}\n")


class CorpusAdd(Stage):
    queries = CORPUS_QUERIES
    counted = "content_files"

    def setup(self):
        super().setup()
        self.src = os.path.join(self.work, "src")
        make_many_files(self.src, 20000)
        shutil.copytree(os.path.join(ROOT, "tests", "data"), os.path.join(self.work, "data"))

    def argv(self, ws):
        return [self.clgen, "--workspace", ws, "-q", "corpus", "add", self.src, os.path.join(self.work, "data"),
                "--batch-size", "40"]


class MineGitHub(Stage):
    queries = CORPUS_QUERIES
    counted = "repositories"

    def setup(self):
        super().setup()
        served = os.path.join(self.work, "served")
        repos = []
        for i in range(30):
            name = f"owner{i}/kernels{i}"
            work = os.path.join(self.work, "repos", f"r{i}")
            os.makedirs(os.path.join(work, "inc"), exist_ok=True)
            for j in range(1 + i % 4):
                with open(os.path.join(work, f"k{j}.cl"), "w") as f:
                    f.write(f'#include "inc/common.h"\nkernel void R{i}_{j}(global float* a) {{ a[0] = SCALE * {j}; }}\n')
            with open(os.path.join(work, "inc", "common.h"), "w") as f:
                f.write(f"#define SCALE {i}.0f\n")
            git = ["git", "-c", "user.name=harness", "-c", "user.email=h@example.invalid", "-C", work]
            run(["git", "init", "-q", work])
            run(git + ["add", "."])
            run(git + ["commit", "-q", "-m", "kernels"])
            bare = os.path.join(served, name + ".git")
            os.makedirs(os.path.dirname(bare), exist_ok=True)
            run(["git", "clone", "-q", "--bare", work, bare])
            repos.append({"full_name": name, "path": name + ".git", "default_branch": "master",
                          "stars": 30 - i, "forks": 1, "license": "MIT"})
        config = {"repos_root": served, "repos": repos, "per_page": 3, "token": "harness-token"}
        with open(os.path.join(self.work, "fixture.json"), "w") as f:
            json.dump(config, f)
        ready = os.path.join(self.work, "ready.json")
        self.server = subprocess.Popen(
            [sys.executable, os.path.join(ROOT, "tests", "corpus", "github_fixture.py"), "--config",
             os.path.join(self.work, "fixture.json"), "--ready", ready, "--log", os.path.join(self.work, "requests.jsonl")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 30
        while not os.path.exists(ready):
            if time.time() > deadline or self.server.poll() is not None:
                raise RuntimeError("the GitHub fixture server did not start")
            time.sleep(0.05)
        time.sleep(0.1)
        with open(ready) as f:
            self.api = json.load(f)["api"]
        self.env = dict(os.environ, CLGEN_HARNESS_TOKEN="harness-token")

    def argv(self, ws):
        return [self.clgen, "--workspace", ws, "-q", "corpus", "mine-github", "--api-url", self.api, "--query", "opencl",
                "--token-env", "CLGEN_HARNESS_TOKEN", "--retry-delay", "0.1", "--max-wait", "5"]

    def teardown(self):
        self.server.terminate()
        self.server.wait()


class Preprocess(Stage):
    queries = PREPROCESS_QUERIES
    counted = "preprocessed"

    def setup(self):
        super().setup()
        data = os.path.join(self.work, "data")
        shutil.copytree(os.path.join(ROOT, "tests", "data"), data)
        # The two inputs that crash Clang on purpose are left out unless
        # KILL_HARNESS_CRASH_INPUTS=1: Clang's crash recovery in a threaded
        # preprocess sometimes deadlocks, aborts or turns another file into a
        # rewrite_bug row, killed or not (docs/BENCHMARKS.md, "Kill harness").
        if os.environ.get("KILL_HARNESS_CRASH_INPUTS") != "1":
            for crash in ("preprocess/reject/clang_crash.cl", "driver/front_end_crash.cl"):
                os.remove(os.path.join(data, crash))
        make_many_files(os.path.join(self.work, "src"), 600)
        run([self.clgen, "--workspace", self.base, "-q", "corpus", "add", data, os.path.join(self.work, "src")])

    def argv(self, ws):
        return [self.clgen, "--workspace", ws, "-q", "corpus", "preprocess", "--batch", "16", "-j", "2"]


def fill_preprocessed(db_path, kernels=os.path.join(ROOT, "tests", "data")):
    """A preprocessed table of the .cl files under `kernels` as they are (the
    trainer reads normalized_text of status 'ok'), independent of the preprocessor."""
    db = sqlite3.connect(db_path)
    db.execute("CREATE TABLE preprocessed(content_sha256 TEXT NOT NULL, preprocessor_version TEXT NOT NULL, "
               "status TEXT NOT NULL, category TEXT, reason TEXT, normalized_text TEXT, normalized_sha256 TEXT, "
               "instruction_count INTEGER, PRIMARY KEY(content_sha256, preprocessor_version))")
    for dirpath, _, files in sorted(os.walk(kernels)):
        for f in sorted(files):
            if f.endswith(".cl"):
                with open(os.path.join(dirpath, f), "rb") as fh:
                    text = fh.read().decode("utf-8", "replace")
                sha = hashlib.sha256(text.encode()).hexdigest()
                db.execute("INSERT OR IGNORE INTO preprocessed VALUES(?, '1', 'ok', NULL, NULL, ?, ?, 10)",
                           (sha, text, sha))
    db.commit()
    db.close()


class Train(Stage):
    queries = TRAIN_QUERIES
    progress = ("SELECT 'checkpoint at epoch ' || (epoch + 1) || ' batch ' || batch FROM checkpoints "
                "ORDER BY id DESC LIMIT 1")
    counted = "checkpoints"
    compare_files = ["models", "vocabularies", "encoded"]

    def setup(self):
        super().setup()
        fill_preprocessed(os.path.join(self.base, "clgen.db"))
        self.config = os.path.join(self.work, "train.toml")
        with open(self.config, "w") as f:
            f.write(TRAIN_CONFIG)
        # One thread: the same reductions in every run, whatever the load.
        self.env = dict(os.environ, OMP_NUM_THREADS="1")

    def argv(self, ws):
        return [self.clgen, "--workspace", ws, "-q", "train", "--config", self.config, "--device", "cpu"]


class Drive(Stage):
    queries = DRIVE_QUERIES
    counted = "runs"
    warm_up = True  # PoCL's kernel cache

    def argv(self, ws):
        kernels = [os.path.join(ROOT, "tests", "data", "driver", k) for k in DRIVE_KERNELS]
        device = os.environ.get("CLGEN_TEST_DEVICE", "cpu")
        return [self.clgen, "--workspace", ws, "-q", "drive", "--device", device, "--runs", "3", "--timeout", "20",
                "--gsize", "256", "--gsize", "1024", "--gsize", "4096", "--gsize", "16384", "--gsize", "65536",
                "-j", "2"] + kernels


class Sample(Stage):
    """`clgen sample -n --args` of a small model: a rerun skips the draws a
    killed run stored and stops at the same draw. Two filter workers: the
    store takes their rows in draw order (before it did not, and which of two
    draws of one kernel was accepted, and where -n stopped, varied with
    thread scheduling; docs/BENCHMARKS.md)."""
    queries = SAMPLE_QUERIES
    counted = "samples"
    progress = ("SELECT COUNT(*) || ' draws stored, ' || COUNT(CASE WHEN status = 'accepted' THEN 1 END) || ' accepted' FROM samples")
    compare_files = ["samples"]
    compare_temporaries = True  # the rerun removes what a killed run left
    warm_up = True  # a cold start (LibTorch, Clang) made the reference slower than the trials

    def setup(self):
        super().setup()
        # The sampler's end-to-end test model (a 1x96 LSTM that learns
        # tests/data/sampler/corpus in about 5 s): the train stage's model of
        # tests/data accepts nothing in minutes.
        fill_preprocessed(os.path.join(self.base, "clgen.db"), os.path.join(ROOT, "tests", "data", "sampler", "corpus"))
        run([self.clgen, "--workspace", self.base, "-q", "train", "--config",
             os.path.join(ROOT, "tests", "data", "sampler", "small.toml"), "--device", "cpu"],
            env=dict(os.environ, OMP_NUM_THREADS="1"), timeout=REFERENCE_TIMEOUT)

    def argv(self, ws):
        return [self.clgen, "--workspace", ws, "-q", "sample", "-n", SAMPLE_ACCEPTED, "--args", SAMPLE_ARGS,
                "--seed", "5", "--temperature", "1.0", "--batch-size", "8", "--max-length", "400",
                "--max-refusals", "32", "--filter-threads", "2", "--device", "cpu"]


STAGE_CLASSES = {"corpus-add": CorpusAdd, "mine-github": MineGitHub, "preprocess": Preprocess, "train": Train,
                 "drive": Drive, "sample": Sample}


def fresh_workspace(stage, name):
    ws = os.path.join(stage.work, name)
    shutil.rmtree(ws, ignore_errors=True)
    shutil.copytree(stage.base, ws)
    return ws


def run_stage(name, trials, seed, clgen, keep):
    work = tempfile.mkdtemp(prefix=f"clgen-kill-{name}-")
    stage = STAGE_CLASSES[name](clgen, work)
    result = {"stage": name, "trials": 0, "passed": 0, "killed": 0, "failures": [], "reference_failures": [],
              "reference_seconds": 0.0}
    try:
        stage.setup()
        run_trials(stage, name, trials, seed, keep, result)
    except Exception as e:  # a broken stage is reported, and the other stages still run
        result["failures"].append({"trial": None, "problems": [f"stage error: {e}"]})
        log(f"[{name}] stage error: {e}")
    finally:
        stage.teardown()
        if not keep and not result["failures"]:
            shutil.rmtree(work, ignore_errors=True)
        else:
            log(f"[{name}] workspaces kept in {work}")
    return result


def run_trials(stage, name, trials, seed, keep, result):
    """The reference run, then the killed and rerun trials, counted in `result`."""
    if stage.warm_up:
        run(stage.argv(fresh_workspace(stage, "warm-up")), env=stage.env, timeout=REFERENCE_TIMEOUT)
    # A reference run that fails or hangs is tried again (and counted).
    for attempt in range(3):
        ref_ws = fresh_workspace(stage, "reference")
        r, duration, work_starts = timed_run(stage.argv(ref_ws), stage.env, os.path.join(ref_ws, "clgen.db"),
                                             stage.first_result_sql(), REFERENCE_TIMEOUT)
        if r.returncode == 0:
            break
        result["reference_failures"].append(f"exited {r.returncode}: {r.stderr.strip()[-300:]}")
        log(f"[{name}] reference run {attempt + 1} {result['reference_failures'][-1]}")
    else:
        raise RuntimeError("no reference run completed")
    ref_integrity, ref_rows = snapshot(os.path.join(ref_ws, "clgen.db"), stage.queries)
    if ref_integrity != [("ok",)]:
        raise RuntimeError(f"the reference database fails integrity_check: {ref_integrity[:3]}")
    ref_files = file_digests(ref_ws, stage.compare_files, not stage.compare_temporaries)
    rows_note = ", ".join(f"{t} {len(v) if v is not None else '-'}" for t, v in ref_rows.items())
    work_starts = work_starts if work_starts is not None else 0.0
    log(f"[{name}] reference: {duration:.1f} s, first result stored after {work_starts:.1f} s; rows: {rows_note}")
    result["reference_seconds"] = duration
    result["work_starts"] = work_starts
    for trial in range(trials):
        rng = random.Random(f"{seed}:{name}:{trial}")
        # Every 4th trial kills during start-up, the others while results are being stored.
        at = rng.uniform(0.0, work_starts) if trial % 4 == 0 else rng.uniform(work_starts, duration)
        ws = fresh_workspace(stage, f"trial{trial}")
        proc = subprocess.Popen(stage.argv(ws), env=stage.env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        try:
            proc.wait(timeout=at)
            killed = False
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            killed = True
        at_kill = killed_progress(os.path.join(ws, "clgen.db"), stage.progress_sql()) if killed else ""
        if not killed and proc.returncode != 0:
            problems_first = [f"the run to be killed exited {proc.returncode} by itself"]
        else:
            problems_first = []
        # A rerun far slower than the reference is taken for a hang.
        rerun = run(stage.argv(ws), env=stage.env, check=False, timeout=60 + 10 * duration)
        problems = problems_first
        if rerun.returncode != 0:
            problems.append(f"rerun exited {rerun.returncode}: {rerun.stderr.strip()[-500:]}")
        try:
            integrity, rows = snapshot(os.path.join(ws, "clgen.db"), stage.queries)
            if integrity != [("ok",)]:
                problems.append(f"integrity_check: {integrity[:3]}")
            diff = first_difference(ref_rows, rows)
            if diff:
                problems.append(diff)
        except sqlite3.Error as e:
            problems.append(f"reading the database: {e}")
        files = file_digests(ws, stage.compare_files, not stage.compare_temporaries)
        if files != ref_files:
            differing = sorted(k for k in set(files) | set(ref_files) if files.get(k) != ref_files.get(k))
            problems.append(f"files differ: {differing[:5]}")
        result["trials"] += 1
        result["killed"] += killed
        status = "pass" if not problems else "FAIL"
        log(f"[{name}] trial {trial + 1}/{trials}: kill at {at:.2f} s "
            f"({'killed: ' + at_kill if killed else 'had finished'}) -> {status}" + ("" if not problems else ": " + "; ".join(problems)))
        if problems:
            result["failures"].append({"trial": trial, "at": at, "problems": problems})
        else:
            result["passed"] += 1
            if not keep:
                shutil.rmtree(ws, ignore_errors=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("stage", choices=STAGES + ["all"])
    p.add_argument("trials", nargs="?", type=int, default=20)
    p.add_argument("seed", nargs="?", type=int, default=1)
    p.add_argument("--clgen", default=os.path.join(ROOT, "build", "cli", "clgen"))
    p.add_argument("--keep", action="store_true", help="keep every workspace")
    args = p.parse_args()
    if args.trials < 1:
        p.error("TRIALS must be at least 1")
    stages = STAGES if args.stage == "all" else [args.stage]
    results = []
    for name in stages:
        results.append(run_stage(name, args.trials, args.seed, args.clgen, args.keep))
    log("")
    log(f"{'stage':<12} {'trials':>6} {'killed':>6} {'passed':>6}  reference run (failed reference runs)")
    for r in results:
        log(f"{r['stage']:<12} {r['trials']:>6} {r['killed']:>6} {r['passed']:>6}  {r['reference_seconds']:.1f} s,"
            f" storing from {r.get('work_starts', 0):.1f} s ({len(r['reference_failures'])})")
    return 1 if any(r.get("failures") for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
