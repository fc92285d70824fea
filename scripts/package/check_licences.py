"""Checks that the packages' declared licence covers everything the staged worker carries.

  check_licences.py WORKER [--declared EXPR] [--table TSV] [--stubs FILE]

WORKER is the staged worker folder (.build/package/worker): lib/ with the bundled shared libraries, licenses/ with
each one's Debian copyright file (<package>.copyright), SOURCES.txt (library, Debian binary package, source package,
version: scripts/package.sh writes it) and this project's LICENSE and THIRD_PARTY_NOTICES.md. The declared licence
is LICENSE-EXPRESSION's (what the wheel and the npm package say); the table is licences.tsv beside this script; the
stand-ins are .build/package/ffmpeg-stubs.txt (this project's own code, skipped).

Fails, naming each one, when a bundled library
  - came from no Debian package that SOURCES.txt records, or from one licences.tsv does not list (unknown licence);
  - is under a licence the declared one does not cover (RULES below: what may be conveyed as part of a work under
    MIT, GPL-2.0-only, GPL-2.0-or-later, GPL-3.0-only or GPL-3.0-or-later), its licence in the table or, for FFmpeg's
    libraries, the licence string the library itself carries (what av*_license() returns, set by the build's flags);
  - has no copyright file in licenses/;
and when a part linked into the binary (licences.tsv's `static` rows) is not covered, or licenses/ lacks LICENSE or
THIRD_PARTY_NOTICES.md.
"""

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import licence_expression  # noqa: E402

TABLE = Path(__file__).with_name("licences.tsv")

# The licences a package may declare, and for each licence a bundled part may be under, which of those cover it:
# may be conveyed as part of a work distributed under them, the part keeping its own notices (licenses/).
DECLARABLE = ("MIT", "GPL-2.0-only", "GPL-2.0-or-later", "GPL-3.0-only", "GPL-3.0-or-later")
ALL = frozenset(DECLARABLE)
GPL = frozenset({"GPL-2.0-only", "GPL-2.0-or-later", "GPL-3.0-only", "GPL-3.0-or-later"})
GPL3 = frozenset({"GPL-3.0-only", "GPL-3.0-or-later"})

RULES = {}
# Permissive, asking only that notices be kept (and names not used to endorse): GPL-compatible, and fine in a package
# declared MIT.
for licence in ("MIT", "X11", "BSD-2-Clause", "BSD-3-Clause", "ISC", "Zlib", "libpng-2.0", "IJG", "curl",
                "bzip2-1.0.6", "OLDAP-2.8", "BSL-1.0", "0BSD", "CC0-1.0", "Unicode-DFS-2016", "Unicode-3.0", "HPND",
                "LicenseRef-public-domain",
                # MIT SIPB's notice on com_err: use, copy, modify, distribute for any purpose; no name in advertising.
                "LicenseRef-MIT-SIPB",
                # "this notice is preserved and due credit is given to the University of Michigan": the OpenLDAP
                # Foundation's clarification (in libldap's copyright file) is that keeping the notice is the credit.
                "LicenseRef-UMich",
                # IBM's code "in any way he or she deems fit", notices kept.
                "LicenseRef-IBM-as-is",
                # 4-clause BSD of the University of California: UC rescinded the advertising clause in 1999.
                "BSD-4-Clause-UC",
                # RSA's MD4/MD5 reference code: RSA's statement of February 2000 (IETF IPR disclosure 157) lets
                # implementations derived from the RFC 1320/1321 code be "made, used, and sold without license from
                # RSA for any purpose"; Fedora's legal policy reads it so, and so does this rule.
                "RSA-MD"):
    RULES[licence] = ALL
# Permissive but with a term beyond keeping notices, of the kinds GPLv3 section 7 lets a part carry (7(b): keep an
# author attribution; 7(c): mark modified versions as such); GPLv2 has no such allowance, so not GPL-2.0.
#   BSD-Attribution-HPND-disclaimer: Cyrus SASL's CMU text, "redistributions of any form whatsoever must retain the
#     following acknowledgment";
#   LicenseRef-MIT-Kerberos: MIT Kerberos' NOTICE, mostly MIT's 2-clause BSD and HPND-style export notices, one of
#     which asks that modified software be labelled as modified; OpenVision's permissive grant; 4-clause BSD texts of
#     UC (rescinded, above) and the NetBSD Foundation (which dropped its clauses 3 and 4 in 2008); RSA's MD4/MD5
#     (above).
for licence in ("BSD-Attribution-HPND-disclaimer", "LicenseRef-MIT-Kerberos"):
    RULES[licence] = frozenset({"MIT"}) | GPL3
# Apache-2.0's patent termination and indemnity terms are further restrictions under GPLv2, not under GPLv3 (the
# FSF's reading); a package declared MIT would not say what it carries.
RULES["Apache-2.0"] = GPL3
# The LGPL's: version 2 and 2.1 let a copy be put under the GPL, version 2 or any later one (section 3); LGPLv3 is
# GPLv3 with extra permissions, so it combines with GPLv3 code only, and an -only version pins the whole to it.
for licence in ("LGPL-2.0-only", "LGPL-2.0-or-later", "LGPL-2.1-only", "LGPL-2.1-or-later"):
    RULES[licence] = GPL
RULES["LGPL-3.0-or-later"] = GPL3
RULES["LGPL-3.0-only"] = frozenset({"GPL-3.0-only"})
# The GPL's: "or later" code may go into a work under that version or a later one; "only" code only under its own.
RULES["GPL-2.0-or-later"] = GPL
RULES["GPL-2.0-only"] = frozenset({"GPL-2.0-only"})
RULES["GPL-3.0-or-later"] = GPL3
RULES["GPL-3.0-only"] = frozenset({"GPL-3.0-only"})

# What FFmpeg's av*_license() say, by configure flags: --enable-gpl, --enable-version3, --enable-nonfree.
FFMPEG_LICENCES = {
    "LGPL version 2.1 or later": "LGPL-2.1-or-later",
    "LGPL version 3 or later": "LGPL-3.0-or-later",
    "GPL version 2 or later": "GPL-2.0-or-later",
    "GPL version 3 or later": "GPL-3.0-or-later",
    "nonfree and unredistributable": "LicenseRef-FFmpeg-nonfree",  # no rule: never covered
}
FFMPEG_STRING = re.compile(rb"lib(?:avcodec|avformat|avutil|avfilter|avdevice|swscale|swresample|postproc) license: "
                           rb"([A-Za-z0-9 .]+)\x00")


def parse(expression):
    """An SPDX expression as a tree: ("id", name), ("and", [..]) or ("or", [..]). WITH keeps the licence: an exception
    only grants more."""
    tokens = re.findall(r"\(|\)|[^\s()]+", expression)
    position = 0

    def peek():
        return tokens[position] if position < len(tokens) else None

    def take():
        nonlocal position
        position += 1
        return tokens[position - 1]

    def operand():
        token = peek()
        if token is None or token == ")" or token.upper() in ("AND", "OR", "WITH"):
            raise ValueError(f"licence expected at {token!r} in {expression!r}")
        take()
        if token == "(":
            node = alternatives()
            if peek() != ")":
                raise ValueError(f"unbalanced parentheses in {expression!r}")
            take()
            return node
        if peek() is not None and peek().upper() == "WITH":
            take()
            if peek() is None or peek() in "()":
                raise ValueError(f"exception expected after WITH in {expression!r}")
            take()
        return ("id", token)

    def together():
        nodes = [operand()]
        while peek() is not None and peek().upper() == "AND":
            take()
            nodes.append(operand())
        return nodes[0] if len(nodes) == 1 else ("and", nodes)

    def alternatives():
        nodes = [together()]
        while peek() is not None and peek().upper() == "OR":
            take()
            nodes.append(together())
        return nodes[0] if len(nodes) == 1 else ("or", nodes)

    tree = alternatives()
    if position != len(tokens):
        raise ValueError(f"unexpected {tokens[position]!r} in {expression!r}")
    return tree


def uncovered(expression, declared):
    """The licences of `expression` that keep it from being covered by `declared`: none when it is covered. For
    `A OR B` one covered alternative is enough; for `A AND B` each must be."""
    def walk(node):
        kind, value = node
        if kind == "id":
            return [] if declared in RULES.get(value, ()) else [value]
        results = [walk(child) for child in value]
        if kind == "or":
            return [] if any(not r for r in results) else [name for r in results for name in r]
        return [name for r in results for name in r]
    return walk(parse(expression))


def why(licence, declared):
    if licence not in RULES:
        return f"{licence} has no rule in check_licences.py"
    return f"{licence} may be conveyed under {', '.join(sorted(RULES[licence]))}, not {declared}"


def read_table(path=TABLE):
    """package -> (releases, licence, where read)."""
    table = {}
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 4:
            raise SystemExit(f"{path}:{number}: expected 4 tab-separated fields, found {len(fields)}")
        package, releases, licence, where = fields
        if package in table:
            raise SystemExit(f"{path}:{number}: {package} is listed twice")
        parse(licence)  # a malformed expression fails here, not only when that library is bundled
        table[package] = (releases, licence, where)
    return table


def read_sources(path):
    """soname -> Debian binary package, from licenses/SOURCES.txt ('-' when package.sh found none)."""
    packages = {}
    if path.is_file():
        for line in path.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                fields = line.split("\t")
                packages[fields[0]] = fields[1] if len(fields) > 1 else "-"
    return packages


def read_stubs(path):
    """The stand-ins' sonames: ffmpeg_stubs.py prints `<soname>: stand-in with N symbols` for each."""
    if path is None or not path.is_file():
        return set()
    return {line.split(":", 1)[0].strip() for line in path.read_text().splitlines() if line.strip()}


def check(worker, declared, table, stubs=()):
    """(problems, summary): problems is empty when everything the worker carries is covered by `declared`."""
    worker = Path(worker)
    problems = []
    if declared not in DECLARABLE:
        return [f"declared licence {declared!r} is not one of {', '.join(DECLARABLE)}"], ""
    licenses = worker / "licenses"
    for notice in ("LICENSE", "THIRD_PARTY_NOTICES.md"):
        if not (licenses / notice).is_file():
            problems.append(f"licenses/{notice} is missing")

    for package, (releases, licence, _) in sorted(table.items()):
        if releases == "static":
            missing = uncovered(licence, declared)
            if missing:
                problems.append(f"{package} (in the binary or beside it) is under {licence}: "
                                + "; ".join(why(m, declared) for m in missing))

    sources = read_sources(licenses / "SOURCES.txt")
    libraries = sorted(p for p in (worker / "lib").iterdir() if p.is_file()) if (worker / "lib").is_dir() else []
    skipped = 0
    checked = set()
    for library in libraries:
        soname = library.name
        if soname in stubs:
            skipped += 1
            continue
        package = sources.get(soname, "-")
        if package == "-":
            problems.append(f"lib/{soname}: no Debian package recorded in licenses/SOURCES.txt, so its licence is "
                            "unknown")
            continue
        checked.add(package)
        if package not in table:
            problems.append(f"lib/{soname}: its package {package} is not in {TABLE.name}, so its licence is unknown "
                            f"(add a row with its licence as built, read from /usr/share/doc/{package}/copyright)")
        else:
            licence = table[package][1]
            missing = uncovered(licence, declared)
            if missing:
                problems.append(f"lib/{soname} ({package}) is under {licence}: "
                                + "; ".join(why(m, declared) for m in missing))
        for found in sorted({m.decode() for m in FFMPEG_STRING.findall(library.read_bytes())}):
            built = FFMPEG_LICENCES.get(found, f"LicenseRef-FFmpeg-unknown({found})")
            if uncovered(built, declared):
                problems.append(f"lib/{soname} says its licence is \"{found}\" as built: {why(built, declared)}")
        copyright_file = licenses / f"{package}.copyright"
        if not copyright_file.is_file() or copyright_file.stat().st_size == 0:
            problems.append(f"lib/{soname}: licenses/{package}.copyright is missing")
    summary = (f"{len(libraries) - skipped} libraries from {len(checked)} Debian packages ({skipped} stand-ins "
               f"skipped) and {sum(1 for r in table.values() if r[0] == 'static')} parts of the binary, all covered "
               f"by {declared}")
    return problems, summary


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("worker", type=Path)
    parser.add_argument("--declared", help="default: scripts/package/LICENSE-EXPRESSION")
    parser.add_argument("--table", type=Path, default=TABLE)
    parser.add_argument("--stubs", type=Path, help="default: ffmpeg-stubs.txt beside WORKER, if there")
    args = parser.parse_args(argv)
    declared = args.declared or licence_expression.declared()
    stubs = args.stubs if args.stubs else args.worker.parent / "ffmpeg-stubs.txt"
    problems, summary = check(args.worker, declared, read_table(args.table), read_stubs(stubs))
    if problems:
        print(f"check_licences: the packages declare {declared}, which does not cover what they carry:",
              file=sys.stderr)
        for problem in problems:
            print(f"  {problem}", file=sys.stderr)
        return 1
    print(f"check_licences: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
