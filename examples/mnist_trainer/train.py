"""A small training script with the usual reproducibility mistakes (for the README demo)."""

import os
import random

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, random_split

torch.backends.cudnn.benchmark = True  # faster convolutions... and a different algorithm each run


def build_dataset(root):
    files = os.listdir(root)  # filesystem order differs between machines
    labels = list(set(name.split("_")[0] for name in files))  # order depends on PYTHONHASHSEED
    images = torch.rand(len(files), 1, 28, 28)
    targets = torch.tensor([labels.index(name.split("_")[0]) for name in files])
    return TensorDataset(images, targets)


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dataset = build_dataset("data/mnist")
    train_set, val_set = random_split(dataset, [0.9, 0.1])
    loader = DataLoader(train_set, batch_size=64, shuffle=True)
    model = nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, 10)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    noise = np.random.normal(0, 0.01)
    for epoch in range(3):
        for images, targets in loader:
            if random.random() < 0.5:
                images = images.flip(-1)
            loss = nn.functional.cross_entropy(model(images.to(device) + noise), targets.to(device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
