#!/usr/bin/env python3
"""Baseline for `clgen train`: the same network, batches and optimizer in
PyTorch's Python API, timed on the same token file, so the C++ trainer's
tokens/s can be compared in one run on one machine.

  python3 bench/model_train_baseline.py --config configs/gpu.toml \
      --workspace clgen-work --device cuda [--max-batches N]

The token file and vocabulary size are read from the model that `clgen train
--config CONFIG` trained in WORKSPACE (its models/<id>/model.json and the
encoded corpus), so train with clgen first (one epoch is enough).
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np
import torch

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib


class Network(torch.nn.Module):
    def __init__(self, vocab, emb, hidden, layers, dropout):
        super().__init__()
        self.embedding = torch.nn.Embedding(vocab, emb)
        self.dropout = torch.nn.Dropout(dropout)
        self.lstm = torch.nn.LSTM(emb, hidden, layers, dropout=dropout if layers > 1 else 0.0)
        self.output = torch.nn.Linear(hidden, vocab)

    def forward(self, x, state):
        y, state = self.lstm(self.dropout(self.embedding(x)), state)
        return self.output(self.dropout(y)), state


def find_train_tokens(workspace, model_id):
    """The model's description and the train.tokens of its encoded corpus."""
    meta = json.load(open(os.path.join(workspace, "models", model_id, "model.json")))
    return meta, os.path.join(workspace, meta["encoded"], "train.tokens")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    ap.add_argument("--workspace", default="clgen-work")
    ap.add_argument("--model-id", default="", help="default: models/latest")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--max-batches", type=int, default=0, help="0 = one full epoch")
    ap.add_argument("--warmup", type=int, default=5)
    args = ap.parse_args()

    cfg = tomllib.load(open(args.config, "rb"))
    m, t = cfg.get("model", {}), cfg.get("training", {})
    model_id = args.model_id or open(os.path.join(args.workspace, "models", "latest")).read().strip()
    meta, tokens_path = find_train_tokens(args.workspace, model_id)
    data = np.memmap(tokens_path, dtype=np.int32, mode="r")
    if t.get("max_tokens", 400000) > 0:  # the trainer's per-epoch cap (same default)
        data = data[: t.get("max_tokens", 400000)]
    B, T = t.get("batch_size", 32), t.get("sequence_length", 64)
    streams = max(1, min(B, len(data) // 2))
    length = len(data) // streams
    T = max(1, min(T, length - 1))
    batches = (length - 1 + T - 1) // T
    grid = torch.from_numpy(np.array(data[: streams * length]).reshape(streams, length).T.astype(np.int64))

    dev = torch.device(args.device)
    torch.manual_seed(t.get("seed", 1))
    net = Network(meta["vocab_size"], m.get("embedding_size", 64), m.get("hidden_size", 256),
                  m.get("layers", 2), m.get("dropout", 0.1)).to(dev)
    opt = (torch.optim.SGD(net.parameters(), lr=t.get("learning_rate", 0.002), momentum=t.get("momentum", 0.9))
           if t.get("optimizer", "adam") == "sgd"
           else torch.optim.Adam(net.parameters(), lr=t.get("learning_rate", 0.002)))
    clip = t.get("gradient_clip", 5.0)
    n = min(batches, args.max_batches) if args.max_batches else batches
    layers, hidden = m.get("layers", 2), m.get("hidden_size", 256)
    state = (torch.zeros(layers, streams, hidden, device=dev), torch.zeros(layers, streams, hidden, device=dev))

    def step(k, state):
        s = k * T
        ln = min(T, length - 1 - s)
        chunk = grid[s:s + ln + 1].to(dev, non_blocking=True)
        x, y = chunk[:-1], chunk[1:]
        state = (state[0].detach(), state[1].detach())
        logits, state = net(x, state)
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        if clip > 0:
            torch.nn.utils.clip_grad_norm_(net.parameters(), clip)
        opt.step()
        return state, ln * streams, loss

    for k in range(min(args.warmup, n)):
        state, _, _ = step(k, state)
    if dev.type == "cuda":
        torch.cuda.synchronize()
    start, tokens = time.perf_counter(), 0
    for k in range(min(args.warmup, n), n):
        state, toks, loss = step(k, state)
        tokens += toks
    if dev.type == "cuda":
        torch.cuda.synchronize()
    secs = time.perf_counter() - start
    print(json.dumps({"baseline": "pytorch-python", "torch": torch.__version__, "device": str(dev),
                      "config": args.config, "model_id": model_id, "streams": streams, "seq": T,
                      "batches_timed": n - min(args.warmup, n), "tokens": tokens, "seconds": round(secs, 3),
                      "tokens_per_second": round(tokens / secs, 1) if secs > 0 else math.nan,
                      "last_loss": float(loss.item()) if tokens else math.nan}))


if __name__ == "__main__":
    main()
