"""Writes the `photoworker` npm package's package.json to stdout: the Node client's manifest (clients/node),
with the worker's version, the `photoworker` command, and the platform the bundled worker runs on."""

import argparse
import json

import licence_expression  # beside this script: the packages' licence, stated once in LICENSE-EXPRESSION

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--version", required=True)
parser.add_argument("--template", required=True, help="clients/node/package.json")
args = parser.parse_args()

with open(args.template) as f:
    manifest = json.load(f)
manifest.pop("scripts", None)  # the client's own test command; the package has no tests
manifest.update({
    "name": "photoworker",
    "version": args.version,
    "description": "photoworker, the stdio JSON-RPC photo worker (self-contained Linux x86-64 build), "
                   "with its Node client",
    "bin": {"photoworker": "bin/photoworker.js"},
    "files": ["index.js", "src/", "bin/", "vendor/", "README.md"],
    "os": ["linux"],
    "cpu": ["x64"],
    # Not the client's own MIT (clients/node/package.json): the package carries the worker and its libraries.
    "license": licence_expression.declared(),
})
print(json.dumps(manifest, indent=2))
