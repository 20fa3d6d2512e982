"""Writing JSON files whole or not at all: a reader, or a resume after a kill, never sees half a file."""
import json
import os
from pathlib import Path


def write_json(path: Path, data: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    os.replace(tmp, path)
