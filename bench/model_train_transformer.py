#!/usr/bin/env python3
"""Training throughput of `clgen train` for a Transformer config, against the
plain-PyTorch model of the same shape, in one call on one machine.

  python3 bench/model_train_transformer.py --config configs/github-transformer.toml \
      --workspace clgen-work --clgen build-gpu/cli/clgen --seconds 120 [--python PY] [--compile]

WORKSPACE must hold the preprocessed corpus. The bench copies its database,
vocabularies and encoded corpus into a scratch workspace (so the models of
WORKSPACE are left alone and every run starts fresh), trains CONFIG there with
clgen for --seconds (then SIGINT: the checkpoint is written), and reports the
training tokens/s of the epochs it finished (from training_metrics: tokens
over training seconds, validation excluded), the first epoch apart (it holds
the start-up), and the share of the bf16 peak (--peak-tflops, default 790:
the H200's measured dense bf16 rate) at 6 x matrix weights + 12 x layers x
context x width FLOPs per token. Then it runs
bench/model_train_transformer_baseline.py on the same token files for the
same time (unless --no-baseline).
"""
import argparse
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    ap.add_argument("--workspace", required=True)
    ap.add_argument("--clgen", default="build/cli/clgen")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--seconds", type=float, default=120)
    ap.add_argument("--python", default=sys.executable, help="the Python with PyTorch for the baseline")
    ap.add_argument("--compile", action="store_true", help="torch.compile the baseline")
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument("--peak-tflops", type=float, default=790.0)
    ap.add_argument("--keep", action="store_true", help="keep the scratch workspace (its path is printed)")
    args = ap.parse_args()

    cfg = tomllib.load(open(args.config, "rb"))
    m = cfg.get("model", {})
    layers, width, context = m.get("layers", 2), m.get("width", 128), m.get("context", 128)
    scratch = tempfile.mkdtemp(prefix="clgen-bench-transformer-")
    for name in ("vocabularies", "encoded"):
        if os.path.isdir(os.path.join(args.workspace, name)):
            shutil.copytree(os.path.join(args.workspace, name), os.path.join(scratch, name))
    src = sqlite3.connect(os.path.join(args.workspace, "clgen.db"))
    dst = sqlite3.connect(os.path.join(scratch, "clgen.db"))
    src.backup(dst)
    src.close()
    dst.close()
    print(f"scratch workspace {scratch}; {args.clgen} train --config {args.config} for {args.seconds:.0f} s")

    cmd = [args.clgen, "--workspace", scratch, "train", "--config", args.config, "--device", args.device]
    began = time.time()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        out, _ = proc.communicate(timeout=args.seconds)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate()
    wall = time.time() - began
    lines = [l for l in out.splitlines() if " tokens/s" in l or "model " in l or "error" in l.lower()]
    print("\n".join(lines[-8:]))
    db = sqlite3.connect(os.path.join(scratch, "clgen.db"))
    rows = db.execute("SELECT m.epoch, m.tokens, m.seconds, m.valid_loss FROM training_metrics m "
                      "JOIN training_runs r ON r.id = m.run_id ORDER BY m.epoch").fetchall()
    vocab = db.execute("SELECT vocab_size FROM training_runs ORDER BY id DESC LIMIT 1").fetchone()
    vocab = vocab[0] if vocab else 0
    flops_per_token = 6 * (layers * 12 * width * width + width * vocab) + 12 * layers * context * width
    print(f"clgen: {len(rows)} epochs in {wall:.1f} s wall; {flops_per_token / 1e6:.1f} M FLOPs per token")

    def report(label, sel):
        tokens = sum(r[1] for r in sel)
        seconds = sum(r[2] for r in sel)
        if seconds <= 0:
            return
        tps = tokens / seconds
        print(f"  {label}: {tokens} tokens in {seconds:.2f} s of training: {tps:,.0f} tokens/s, "
              f"{tps * flops_per_token / 1e12:.1f} TFLOP/s = "
              f"{100 * tps * flops_per_token / (args.peak_tflops * 1e12):.1f}% of {args.peak_tflops:.0f}")

    report("all epochs", rows)
    report("epochs 2..", rows[1:])
    best = min((r for r in rows if r[3] is not None), key=lambda r: r[3], default=None)
    if best:
        print(f"  best validation loss {best[3]:.4f} nats/token at epoch {best[0]}; last {rows[-1][3]:.4f}")
    if not args.no_baseline:
        base = [args.python, os.path.join(os.path.dirname(__file__), "model_train_transformer_baseline.py"),
                "--config", args.config, "--workspace", scratch, "--seconds", str(args.seconds),
                "--device", args.device, "--peak-tflops", str(args.peak_tflops)]
        if args.compile:
            base.append("--compile")
        print("== PyTorch baseline: " + " ".join(base))
        subprocess.run(base, check=False)
    if args.keep:
        print(f"kept {scratch}")
    else:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
