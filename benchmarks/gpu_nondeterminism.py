"""Run a sample of the ops ND203 flags on CUDA, several times on the same inputs, and
report which ones really give different results from run to run.

    python benchmarks/gpu_nondeterminism.py [--repeats 5] [--size 1000000] [--json]

For each op: the number of distinct results over ``--repeats`` runs with deterministic
mode off (1 means it repeated itself bit for bit), then the same under
``torch.use_deterministic_algorithms(True)`` ("raises" when PyTorch has no deterministic
kernel), next to what the rule data (``rules/kernels.toml``) says about the op for the
installed torch version.  Inputs are float32 with many repeated indices, so atomics
contend.  Without torch or a CUDA device it prints one line saying so and exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

# before torch creates a cuBLAS handle: deterministic mode needs it on torch < 2.10
os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")

ROOT = Path(__file__).resolve().parent.parent


def rule_kinds(version: str) -> Dict[str, str]:
    """``{op id: kind}`` from the ND203 table for a torch version (the linter's view)."""
    try:
        sys.path.insert(0, str(ROOT / "src"))
        from nondet_lint import _toml
        from nondet_lint.versions import in_range, parse_version
    except ImportError:
        return {}
    data = _toml.loads((ROOT / "rules" / "kernels.toml").read_text(encoding="utf-8"))
    parsed = parse_version(version)
    kinds = {}
    for entry in data["ND203"]["data"]["ops"]:
        for item in entry.get("status", []):
            if parsed is not None and in_range(parsed, item.get("versions", "*")):
                kinds[entry["id"]] = item["kind"]
                break
        else:
            kinds[entry["id"]] = "deterministic"
    return kinds


def cases(torch: Any, size: int) -> Dict[str, Callable[[], Any]]:
    """Op id (as in the rule data) -> a function returning the op's result (a tensor)."""
    F = torch.nn.functional
    dev = "cuda"
    gen = torch.Generator(device="cpu").manual_seed(0)

    def rand(*shape: int) -> Any:
        return torch.randn(*shape, generator=gen).to(dev)

    def ints(high: int, n: int) -> Any:
        return torch.randint(0, high, (n,), generator=gen).to(dev)

    bins = 128
    values, index = rand(size), ints(bins, size)
    images, volumes = rand(16, 8, 64, 64), rand(4, 4, 16, 32, 32)

    def grad_of(make: Callable[[Any], Any], leaf: Any) -> Callable[[], Any]:
        def run() -> Any:
            x = leaf.detach().clone().requires_grad_(True)
            make(x).pow(2).sum().backward()
            return x.grad
        return run

    conv = torch.nn.Conv2d(8, 16, 3).to(dev)
    lstm = torch.nn.LSTM(32, 64, batch_first=True).to(dev)
    emb_index = ints(1000, 50_000)
    ctc_targets = torch.randint(1, 20, (16, 30), generator=gen).to(dev)

    def ctc(x: Any) -> Any:
        log_probs = x.log_softmax(2)
        lengths = torch.full((16,), 50, dtype=torch.long)
        return F.ctc_loss(log_probs, ctc_targets, lengths, torch.full((16,), 30, dtype=torch.long), reduction="sum")

    return {
        "index_add": lambda: torch.zeros(bins, device=dev).index_add_(0, index, values),
        "scatter_add": lambda: torch.zeros(bins, device=dev).scatter_add_(0, index, values),
        "index_put_accumulate": lambda: torch.zeros(bins, device=dev).index_put_((index,), values, accumulate=True),
        "put_accumulate_cuda": lambda: torch.zeros(bins, device=dev).put_(index, values, accumulate=True),
        "scatter_reduce_sum": lambda: torch.zeros(bins, device=dev).scatter_reduce(0, index, values, "sum"),
        "scatter_reduce_prod": lambda: torch.ones(bins, device=dev).scatter_reduce(0, index, 1 + values * 1e-3, "prod"),
        "bincount_weights": lambda: torch.bincount(index, weights=values, minlength=bins),
        "histc": lambda: torch.histc(values, bins=bins),
        "cumsum": lambda: torch.cumsum(values, 0),
        "median_indices": lambda: torch.median(rand(64, 4096).round(), dim=1).indices,
        "conv2d": grad_of(lambda x: conv(x), images),
        "adaptive_avg_pool2d_backward": grad_of(lambda x: F.adaptive_avg_pool2d(x, 3), images),
        "avg_pool3d_backward": grad_of(lambda x: F.avg_pool3d(x, 3, stride=2), volumes),
        "max_pool3d_backward": grad_of(lambda x: F.max_pool3d(x, 3, stride=2), volumes),
        "interpolate_linear_backward": grad_of(lambda x: F.interpolate(x, scale_factor=1.7, mode="bilinear"), images),
        "reflection_pad2d_backward": grad_of(lambda x: F.pad(x, (3, 3, 3, 3), mode="reflect"), images),
        "grid_sample_backward": grad_of(lambda x: F.grid_sample(x, rand(16, 48, 48, 2).tanh(), align_corners=False), images),
        "gather_backward": grad_of(lambda x: x.gather(0, index[: size // 10]), values),
        "index_select_backward": grad_of(lambda x: x.index_select(0, index), values),
        "embedding_backward": grad_of(lambda w: F.embedding(emb_index, w), rand(1000, 64)),
        "embedding_bag_max_backward": grad_of(lambda w: F.embedding_bag(emb_index, w, torch.arange(0, 50_000, 50, device=dev), mode="max"), rand(1000, 64)),
        "ctc_loss_backward": grad_of(ctc, rand(50, 16, 20)),
        "rnn_cudnn": grad_of(lambda x: lstm(x)[0], rand(32, 100, 32)),
        "sdpa_backward": grad_of(lambda q: F.scaled_dot_product_attention(q, q, q), rand(8, 8, 256, 64)),
    }


def measure(torch: Any, run: Callable[[], Any], repeats: int) -> str:
    """How many distinct results ``repeats`` runs give, or "raises"."""
    results: List[Any] = []
    try:
        for _ in range(repeats):
            results.append(run().detach().float().cpu())
            torch.cuda.synchronize()
    except RuntimeError as exc:
        text = str(exc)
        if "deterministic" in text:
            return "raises"
        return "error: " + text.splitlines()[0][:60]
    distinct: List[Any] = []
    for result in results:
        if not any(torch.equal(result, seen) for seen in distinct):
            distinct.append(result)
    return f"{len(distinct)}/{repeats}"


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--size", type=int, default=1_000_000, help="elements in the scatter inputs")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    try:
        import torch
    except ImportError:
        print("no CUDA device: torch is not installed; nothing to measure")
        return 0
    if not torch.cuda.is_available():
        print(f"no CUDA device (torch {torch.__version__}); nothing to measure")
        return 0
    torch.backends.cudnn.benchmark = False
    kinds = rule_kinds(torch.__version__)
    rows = []
    for op_id, run in cases(torch, args.size).items():
        torch.use_deterministic_algorithms(False)
        default = measure(torch, run, args.repeats)
        torch.use_deterministic_algorithms(True)
        deterministic = measure(torch, run, args.repeats)
        torch.use_deterministic_algorithms(False)
        rows.append({"op": op_id, "rule data": kinds.get(op_id, "?"), "default": default, "deterministic mode": deterministic})
    header = {
        "device": torch.cuda.get_device_name(0), "torch": torch.__version__,
        "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(), "repeats": args.repeats,
    }
    if args.json:
        print(json.dumps({"environment": header, "ops": rows}, indent=2))
        return 0
    print(", ".join(f"{key} {value}" for key, value in header.items()))
    print("distinct results over the runs: 1/N = repeats itself, more = differs run to run")
    columns = ["op", "rule data", "default", "deterministic mode"]
    widths = [max(len(c), *(len(str(r[c])) for r in rows)) for c in columns]
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths)))
    for row in rows:
        print("  ".join(str(row[c]).ljust(w) for c, w in zip(columns, widths)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
