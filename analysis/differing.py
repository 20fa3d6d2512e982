"""What differs between two sets of recorded settings (a manifest's, or an arm's entry in it): the
variant sections' paragraph of differences, and the comparison of two runs."""
import json
from collections.abc import Mapping


def flat(value, prefix: str = "") -> dict:
    """A nested settings mapping as dotted keys (libraries.MySqlConnector), values as written."""
    if not isinstance(value, Mapping):
        return {prefix: value} if prefix else {}
    out = {}
    for key, inner in value.items():
        out.update(flat(inner, f"{prefix}.{key}" if prefix else str(key)) if isinstance(inner, Mapping)
                   else {f"{prefix}.{key}" if prefix else str(key): inner})
    return out


def shown_value(value) -> str:
    if value is None:
        return "not set"
    return value if isinstance(value, str) else json.dumps(value)


def differing(a: dict, b: dict) -> list[str]:
    """`key: a's value against b's` for every key whose values differ."""
    keys = list(dict.fromkeys([*a, *b]))
    return [f"{k}: {shown_value(a.get(k))} against {shown_value(b.get(k))}" for k in keys if a.get(k) != b.get(k)]
