#!python
"""The wheel's `photoworker` command: replaces this Python process with the worker bundled in the wheel.

Installed from the wheel's .data/scripts/ (pip and uv write the environment's interpreter over `#!python`), not as
a console-script entry point: an entry point imports `photoworker_client`, whose __init__ loads asyncio and the
whole client (about 35 ms before the worker even starts); `find_spec` locates the package without running it.
`execv`, not a child process: signals, stdio, the exit status and the process id are the worker's own, so a host
that spawns `photoworker` (an editor, an MCP host) talks to the worker directly and no Python parent is left
behind. The worker's place in the package is photoworker_client/_bundled.py's too.
"""
import os
import sys
from importlib.util import find_spec

spec = find_spec("photoworker_client")
worker = os.path.join(spec.submodule_search_locations[0], "_worker", "photoworker") if spec else None
if worker is None or not os.path.isfile(worker):
    sys.stderr.write("photoworker: this installation carries no worker (expected photoworker_client/_worker/)\n")
    sys.exit(127)
os.execv(worker, [worker, *sys.argv[1:]])
