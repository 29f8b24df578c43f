"""ND3xx: data order, pinning and the validation split (one module per concern)."""

from __future__ import annotations

from nondet_lint.checks import data_order, data_pinning, data_split, hash_split, tfds, url_pinning

CHECKS = [*data_order.CHECKS, *data_pinning.CHECKS, *data_split.CHECKS, *hash_split.CHECKS, *tfds.CHECKS, *url_pinning.CHECKS]
