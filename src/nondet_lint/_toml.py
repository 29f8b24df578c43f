"""tomllib on Python 3.11+, the tomli backport below."""

import sys

if sys.version_info >= (3, 11):
    import tomllib as toml
else:  # pragma: no cover - exercised on old interpreters only
    import tomli as toml

TOMLDecodeError = toml.TOMLDecodeError
loads = toml.loads
