"""ND301-ND307: data order, pinning and the validation split.

``context`` is the per-file context the data checks share (order flow, string typing);
``order`` holds ND301 and ND302 (with ``listings``), ``pinning`` ND303 and ND304,
``split`` ND305 to ND307.
"""
