"""ND301-ND307: data order, pinning and the validation split.

``context`` is the per-file context the data checks share (order flow, string typing);
``order`` holds ND301 and ND302 (with ``listings``), ``pinning`` ND303 and ND304,
``split`` ND305 to ND307; ``urls`` (ND303 for URL downloads), ``tfds`` (ND303 / ND307
for TensorFlow Datasets) and ``hashsplit`` (ND305 for ``hash()`` splits) add candidates
of those codes.
"""
