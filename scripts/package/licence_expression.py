"""The packages' declared licence (an SPDX expression), read from scripts/package/LICENSE-EXPRESSION: the one place
it is stated. wheel.py, npm_manifest.py and check_licences.py use it."""

from pathlib import Path

PATH = Path(__file__).with_name("LICENSE-EXPRESSION")


def declared(path=PATH):
    """The first line that is neither blank nor a # comment."""
    for line in Path(path).read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            return line
    raise SystemExit(f"{path}: no licence expression")
