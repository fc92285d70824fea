"""Writes the `photoworker` wheel: the Python client (photoworker_client) with the self-contained worker in
photoworker_client/_worker/, and a `photoworker` command (scripts/package/photoworker_command.py, installed from
the wheel's .data/scripts/ into the environment's bin/).

Written directly (a wheel is a zip with a dist-info folder, PEP 427) rather than through a build backend: the
platform tag and the executable bits must be exact, and nothing needs to be fetched to build it.
"""

import argparse
import base64
import hashlib
import os
import stat
import zipfile
from pathlib import Path

import licence_expression  # beside this script: the packages' licence, stated once in LICENSE-EXPRESSION

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--version", required=True)
parser.add_argument("--platform", required=True, help="for example manylinux_2_34_x86_64")
parser.add_argument("--client", required=True, type=Path, help="clients/python/photoworker_client")
parser.add_argument("--worker", required=True, type=Path, help="the staged worker folder")
parser.add_argument("--readme", required=True, type=Path)
parser.add_argument("--out", required=True, type=Path)
args = parser.parse_args()

name = "photoworker"
dist_info = f"{name}-{args.version}.dist-info"
data_scripts = f"{name}-{args.version}.data/scripts"  # installed into the environment's bin/
tag = f"py3-none-{args.platform}"
wheel_path = args.out / f"{name}-{args.version}-{tag}.whl"

metadata = f"""Metadata-Version: 2.1
Name: {name}
Version: {args.version}
Summary: photoworker, the stdio JSON-RPC photo worker (self-contained Linux x86-64 build), with its Python client
License: {licence_expression.declared()}
Requires-Python: >=3.10
Provides-Extra: ray
Requires-Dist: ray[data]>=2.40; extra == "ray"
Requires-Dist: pyarrow; extra == "ray"
Description-Content-Type: text/markdown

{args.readme.read_text()}"""
wheel = f"""Wheel-Version: 1.0
Generator: photoworker scripts/package/wheel.py
Root-Is-Purelib: false
Tag: {tag}
"""
command = Path(__file__).with_name("photoworker_command.py")


def files():
    """(archive name, source path) of every file, sorted so the wheel is the same from the same inputs."""
    for root, prefix in ((args.client, "photoworker_client"), (args.worker, "photoworker_client/_worker")):
        for path in sorted(root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                yield f"{prefix}/{path.relative_to(root).as_posix()}", path


record = []


def add(archive, name, data, executable=False):
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    # pip keeps the executable bit from the entry's Unix mode.
    info.external_attr = ((stat.S_IFREG | (0o755 if executable else 0o644)) << 16)
    archive.writestr(info, data)
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    record.append(f"{name},sha256={digest},{len(data)}")


args.out.mkdir(parents=True, exist_ok=True)
with zipfile.ZipFile(wheel_path, "w", compresslevel=6) as archive:
    for member, path in files():
        add(archive, member, path.read_bytes(), executable=os.access(path, os.X_OK))
    add(archive, f"{dist_info}/METADATA", metadata.encode())
    add(archive, f"{dist_info}/WHEEL", wheel.encode())
    add(archive, f"{data_scripts}/photoworker", command.read_bytes(), executable=True)
    record.append(f"{dist_info}/RECORD,,")
    add_record = "\n".join(record) + "\n"
    info = zipfile.ZipInfo(f"{dist_info}/RECORD", date_time=(2020, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = (stat.S_IFREG | 0o644) << 16
    archive.writestr(info, add_record)
print(wheel_path)
