#!/usr/bin/env python3
"""Baseline for `clgen train` with model.type = "transformer": a decoder-only
Transformer of the same shape in plain PyTorch (pre-LayerNorm blocks, learned
positions, tied embeddings, SDPA causal attention, bf16 autocast with fp32
weights, fused AdamW with decay on the matrices, warm-up + cosine, gradient
clipping), trained for a fixed time on the same encoded token files, so the
C++ trainer's tokens/s can be compared in one GPU call. --host-batches and
--seed-every-batch add what clgen's loop does beyond the model, to time them.

  python3 bench/model_train_transformer_baseline.py --config configs/github-transformer.toml \
      --workspace clgen-work --seconds 120 [--compile]

The token files come from the model that `clgen train --config CONFIG`
trained in WORKSPACE (models/<id>/model.json names its encoded corpus), so
train with clgen first (a few steps are enough: interrupt it). It prints
training tokens/s (counted after --warmup steps, without validation), the
share of the bf16 peak (--peak-tflops, default 790: the H200's measured
dense bf16 rate), and the validation loss in nats per token at the end.
"""
import argparse
import json
import math
import os
import time

import numpy as np
import torch
import torch.nn.functional as F

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib


class Block(torch.nn.Module):
    def __init__(self, width, heads, dropout):
        super().__init__()
        self.heads, self.dropout = heads, dropout
        self.ln1 = torch.nn.LayerNorm(width)
        self.qkv = torch.nn.Linear(width, 3 * width)
        self.proj = torch.nn.Linear(width, width)
        self.ln2 = torch.nn.LayerNorm(width)
        self.fc = torch.nn.Linear(width, 4 * width)
        self.fc_out = torch.nn.Linear(4 * width, width)
        self.drop = torch.nn.Dropout(dropout)

    def forward(self, x):
        b, t, w = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(w, dim=-1)
        q, k, v = (z.view(b, t, self.heads, w // self.heads).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, dropout_p=self.dropout if self.training else 0.0,
                                           is_causal=True)
        x = x + self.drop(self.proj(y.transpose(1, 2).reshape(b, t, w)))
        return x + self.drop(self.fc_out(F.gelu(self.fc(self.ln2(x)))))


class Gpt(torch.nn.Module):
    def __init__(self, vocab, layers, width, heads, context, dropout):
        super().__init__()
        self.tok = torch.nn.Embedding(vocab, width)
        self.pos = torch.nn.Embedding(context, width)
        self.drop = torch.nn.Dropout(dropout)
        self.blocks = torch.nn.ModuleList(Block(width, heads, dropout) for _ in range(layers))
        self.ln = torch.nn.LayerNorm(width)
        for name, p in self.named_parameters():
            if p.dim() == 2:
                std = 0.02 / math.sqrt(2 * layers) if name.endswith(("proj.weight", "fc_out.weight")) else 0.02
                torch.nn.init.normal_(p, 0, std)
            elif name.endswith("bias"):
                torch.nn.init.zeros_(p)

    def forward(self, x):
        pos = torch.arange(x.size(1), device=x.device)
        h = self.drop(self.tok(x) + self.pos(pos))
        for b in self.blocks:
            h = b(h)
        return F.linear(self.ln(h), self.tok.weight)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    ap.add_argument("--workspace", default="clgen-work")
    ap.add_argument("--model-id", default="", help="default: models/latest")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--seconds", type=float, default=60, help="training time after warm-up")
    ap.add_argument("--warmup", type=int, default=10, help="steps not timed (allocator, kernels, compile)")
    ap.add_argument("--compile", action="store_true", help="torch.compile the model")
    ap.add_argument("--peak-tflops", type=float, default=790.0)
    ap.add_argument("--host-batches", action="store_true",
                    help="draw the windows on the CPU and copy them through pinned memory, as clgen does")
    ap.add_argument("--seed-every-batch", action="store_true",
                    help="torch.manual_seed before every batch, as clgen does (resumable dropout masks)")
    args = ap.parse_args()

    cfg = tomllib.load(open(args.config, "rb"))
    m, t = cfg.get("model", {}), cfg.get("training", {})
    model_id = args.model_id or open(os.path.join(args.workspace, "models", "latest")).read().strip()
    meta = json.load(open(os.path.join(args.workspace, "models", model_id, "model.json")))
    assert meta.get("type") == "transformer", f"model {model_id} is not a Transformer"
    vocab = meta["vocab_size"]
    layers, width, heads, context = meta["layers"], meta["width"], meta["heads"], meta["context"]
    dropout = meta["dropout"]
    batch = t.get("batch_size", 32)
    lr, wd = t.get("learning_rate", 1e-3), t.get("weight_decay", 0.0)
    warmup_steps, clip = t.get("warmup_steps", 0), t.get("gradient_clip", 1.0)
    enc = os.path.join(args.workspace, meta["encoded"])
    train = np.fromfile(os.path.join(enc, "train.tokens"), dtype="<i4").astype(np.int64)
    valid = np.fromfile(os.path.join(enc, "valid.tokens"), dtype="<i4").astype(np.int64)
    dev = torch.device(args.device)
    train_t = torch.from_numpy(train).to(dev)
    valid_t = torch.from_numpy(valid).to(dev)

    torch.manual_seed(t.get("seed", 1))
    net = Gpt(vocab, layers, width, heads, context, dropout).to(dev)
    matrices = [p for n, p in net.named_parameters() if p.dim() == 2 and "tok" not in n and "pos" not in n]
    rest = [p for n, p in net.named_parameters() if not (p.dim() == 2 and "tok" not in n and "pos" not in n)]
    fused = dev.type == "cuda"
    opt = torch.optim.AdamW([{"params": matrices, "weight_decay": wd}, {"params": rest, "weight_decay": 0.0}],
                            lr=lr, betas=(0.9, 0.95), fused=fused)
    model = torch.compile(net) if args.compile else net
    steps_per_epoch = max(1, len(train) // (batch * context))
    total_steps = steps_per_epoch * t.get("epochs", 1)

    def lr_at(step):
        if step < warmup_steps:
            return lr * (step + 1) / warmup_steps
        p = min(1.0, (step - warmup_steps) / max(1, total_steps - warmup_steps))
        return 0.1 * lr + 0.9 * lr * 0.5 * (1 + math.cos(math.pi * p))

    amp = torch.autocast(device_type=dev.type, dtype=torch.bfloat16, enabled=dev.type == "cuda")
    offsets = torch.arange(context + 1, device=dev)
    host_offsets, rng = np.arange(context + 1), np.random.default_rng(t.get("seed", 1))
    n_params = sum(p.numel() for n, p in net.named_parameters() if "pos" not in n and "ln" not in n)
    matrix_params = layers * 12 * width * width + width * vocab
    flops_per_token = 6 * matrix_params + 12 * layers * context * width

    def sync():
        if dev.type == "cuda":
            torch.cuda.synchronize()

    step, timed_tokens, timed_seconds = 0, 0, 0.0
    start = None
    while True:
        if step == args.warmup:
            sync()
            start = time.perf_counter()
        for g in opt.param_groups:
            g["lr"] = lr_at(step)
        if args.seed_every_batch:
            torch.manual_seed(step)
        if args.host_batches:
            starts = rng.integers(0, len(train) - context - 1, batch)
            host = torch.from_numpy(train[starts[:, None] + host_offsets]).pin_memory()
            w = host.to(dev, non_blocking=True)
        else:
            starts = torch.randint(0, len(train) - context - 1, (batch, 1), device=dev)
            w = train_t[starts + offsets]
        x, y = w[:, :-1], w[:, 1:]
        with amp:
            logits = model(x)
        loss = F.cross_entropy(logits.float().view(-1, vocab), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), clip)
        opt.step()
        step += 1
        if start is not None:
            timed_tokens += batch * context
            if step % 20 == 0:
                sync()
                timed_seconds = time.perf_counter() - start
                if timed_seconds >= args.seconds:
                    break
    tps = timed_tokens / timed_seconds
    print(f"pytorch {torch.__version__} transformer {layers}x{width}, {heads} heads, context {context}, "
          f"{n_params / 1e6:.1f} M parameters (without positions and norms), batch {batch}, device {dev}")
    print(f"train: {step} steps, last loss {loss.item():.4f}; timed {step - args.warmup} steps, "
          f"{timed_tokens} tokens in {timed_seconds:.2f} s: {tps:,.0f} tokens/s")
    print(f"flops: {flops_per_token / 1e6:.1f} M per token (6 x matrix weights + attention), "
          f"{tps * flops_per_token / 1e12:.1f} TFLOP/s = {100 * tps * flops_per_token / (args.peak_tflops * 1e12):.1f}% "
          f"of {args.peak_tflops:.0f} TFLOP/s")
    net.eval()
    total, count = 0.0, 0
    with torch.no_grad(), amp:
        for s in range(0, len(valid) - 1, context * batch):
            starts = torch.arange(s, min(s + context * batch, len(valid) - 1), context, device=dev)
            full = [st for st in starts.tolist() if st + context + 1 <= len(valid)]
            if full:
                idx = torch.tensor(full, device=dev).view(-1, 1) + offsets
                w = valid_t[idx]
                out = model(w[:, :-1])
                total += F.cross_entropy(out.float().reshape(-1, vocab), w[:, 1:].reshape(-1), reduction="sum").item()
                count += w[:, 1:].numel()
            for st in starts.tolist():
                if st + context + 1 > len(valid):  # the short last window
                    w = valid_t[st:].view(1, -1)
                    out = model(w[:, :-1])
                    total += F.cross_entropy(out.float().reshape(-1, vocab), w[:, 1:].reshape(-1),
                                             reduction="sum").item()
                    count += w.size(1) - 1
    if count:
        print(f"validation: {total / count:.4f} nats/token over {count} tokens")


if __name__ == "__main__":
    main()
