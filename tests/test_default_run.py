"""ND109 with a computed ``shuffle=``: judged the way the default run goes."""

from __future__ import annotations

LOADERS = """
import argparse
import torch
from torch.utils.data import DataLoader, DistributedSampler

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--distributed", action="store_true")
    parser.add_argument("--world", default=None)
    args = parser.parse_args()
    data = list(range(10))
    sampler = DistributedSampler(data) if args.distributed else None
    a = DataLoader(data, shuffle=(sampler is None), sampler=sampler)
    guarded = None
    if args.distributed:
        guarded = DistributedSampler(data)
    b = DataLoader(data, shuffle=guarded is None, sampler=guarded)
    always = DistributedSampler(data, shuffle=False)
    c = DataLoader(data, shuffle=(always is None), sampler=always)
    d = DataLoader(data, shuffle=not args.distributed)
    e = DataLoader(data, shuffle=args.world is not None)
    f = DataLoader(data, shuffle=is_train(data))
    for batch in a:
        torch.tensor(1.0, requires_grad=True).backward()

if __name__ == "__main__":
    main()
"""


def test_computed_shuffle_follows_the_default_run(lint):
    findings = [f for f in lint({"train.py": LOADERS}, {"select": ["ND109"]}) if f.code == "ND109"]
    assert [(f.line, f.col + 1) for f in findings] == [(12, 9), (16, 9), (19, 9)]
    assert findings[0].message.startswith("`DataLoader` shuffles with the PyTorch global RNG: no `generator=` is passed")
    assert findings[0].fix is not None


def test_computed_shuffle_off_in_the_default_run_is_not_reported(lint):
    source = LOADERS.replace('action="store_true"', 'action="store_false"')
    findings = [f for f in lint({"train.py": source}, {"select": ["ND109"]}) if f.code == "ND109"]
    assert [(f.line, f.col + 1) for f in findings] == []
