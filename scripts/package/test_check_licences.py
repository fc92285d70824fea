"""Tests of check_licences.py on fake staged workers, of licences.tsv, and that the wheel's metadata and the npm
package.json state the licence LICENSE-EXPRESSION states. No build needed:
    python3 -m pytest -q -p no:cacheprovider scripts/package/test_check_licences.py
"""

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
import check_licences  # noqa: E402
import licence_expression  # noqa: E402

DECLARED = licence_expression.declared()
TABLE = check_licences.read_table()


def stage(tmp_path, libraries, stubs=(), copyrights=None, contents=None):
    """A staged worker folder: lib/<soname> for each (soname, package) of `libraries` (package None: not recorded),
    and for each stand-in; licenses/ with SOURCES.txt, LICENSE, THIRD_PARTY_NOTICES.md and <package>.copyright for
    each package (or only those in `copyrights`)."""
    worker = tmp_path / "worker"
    (worker / "lib").mkdir(parents=True)
    (worker / "licenses").mkdir()
    (worker / "licenses" / "LICENSE").write_text("MIT License\n")
    (worker / "licenses" / "THIRD_PARTY_NOTICES.md").write_text("# Third-party notices\n")
    lines = ["# library\tbinary package\tsource package\tsource version"]
    for soname, package in libraries:
        (worker / "lib" / soname).write_bytes((contents or {}).get(soname, b"\x7fELF fake"))
        if package is not None:
            lines.append(f"{soname}\t{package}\tsrc\t1.0-1")
            if copyrights is None or package in copyrights:
                (worker / "licenses" / f"{package}.copyright").write_text(f"copyright of {package}\n")
    (worker / "licenses" / "SOURCES.txt").write_text("\n".join(lines) + "\n")
    for soname in stubs:
        (worker / "lib" / soname).write_bytes(b"\x7fELF stand-in")
    return worker


def table_with(**rows):
    """The real table plus rows package=licence (underscores in the keyword become dashes)."""
    table = dict(TABLE)
    for package, licence in rows.items():
        table[package.replace("_", "-")] = ("bookworm", licence, "test")
    return table


def test_a_covered_set_passes(tmp_path):
    worker = stage(tmp_path, [("libwebp.so.7", "libwebp7"), ("libheif.so.1", "libheif1"), ("libssl.so.3", "libssl3"),
                              ("libcrypto.so.3", "libssl3"), ("librtmp.so.1", "librtmp1")],
                   stubs=["libx264.so.164"])
    problems, summary = check_licences.check(worker, "GPL-3.0-or-later", TABLE, {"libx264.so.164"})
    assert problems == []
    assert "5 libraries from 4 Debian packages (1 stand-ins skipped)" in summary


def test_b_gpl2_only_library_is_not_covered_by_gpl3_or_later(tmp_path):
    worker = stage(tmp_path, [("libwebp.so.7", "libwebp7"), ("libonly2.so.1", "libonly2-1")])
    problems, _ = check_licences.check(worker, "GPL-3.0-or-later", table_with(libonly2_1="GPL-2.0-only"))
    assert len(problems) == 1
    assert "lib/libonly2.so.1 (libonly2-1) is under GPL-2.0-only" in problems[0]
    assert "not GPL-3.0-or-later" in problems[0]


def test_c_unknown_package_fails(tmp_path):
    worker = stage(tmp_path, [("libmystery.so.1", "libmystery1"), ("libnowhere.so.2", None)])
    problems, _ = check_licences.check(worker, DECLARED, TABLE)
    assert any("libmystery1 is not in licences.tsv" in p for p in problems), problems
    assert any("lib/libnowhere.so.2: no Debian package recorded" in p for p in problems), problems


def test_d_missing_copyright_file_fails(tmp_path):
    worker = stage(tmp_path, [("libwebp.so.7", "libwebp7"), ("libgif.so.7", "libgif7")], copyrights={"libwebp7"})
    problems, _ = check_licences.check(worker, DECLARED, TABLE)
    assert problems == ["lib/libgif.so.7: licenses/libgif7.copyright is missing"]
    (worker / "licenses" / "LICENSE").unlink()
    problems, _ = check_licences.check(worker, DECLARED, TABLE)
    assert "licenses/LICENSE is missing" in problems


def test_e_x265_and_ffmpeg_pass_with_the_declared_licence(tmp_path):
    # What Debian 12's libavcodec carries: "libavcodec license: " and what avcodec_license() returns.
    avcodec = b"\x7fELF...libavcodec license: GPL version 2 or later\x00..."
    worker = stage(tmp_path, [("libx265.so.199", "libx265-199"), ("libavcodec.so.59", "libavcodec59")],
                   contents={"libavcodec.so.59": avcodec})
    assert TABLE["libx265-199"][1].startswith("GPL-2.0-or-later")
    assert TABLE["libavcodec59"][1] == "GPL-2.0-or-later"
    problems, _ = check_licences.check(worker, DECLARED, TABLE)
    assert problems == []
    # ...and neither would be covered by the MIT the packages used to declare.
    problems, _ = check_licences.check(worker, "MIT", TABLE)
    assert any("libx265-199" in p for p in problems) and any("libavcodec59" in p for p in problems)


def test_ffmpeg_built_nonfree_fails_whatever_the_table_says(tmp_path):
    avcodec = b"libavcodec license: nonfree and unredistributable\x00"
    worker = stage(tmp_path, [("libavcodec.so.59", "libavcodec59")], contents={"libavcodec.so.59": avcodec})
    problems, _ = check_licences.check(worker, DECLARED, TABLE)
    assert len(problems) == 1 and "nonfree and unredistributable" in problems[0]


def test_the_rules():
    covered = lambda expression, declared: check_licences.uncovered(expression, declared) == []  # noqa: E731
    assert covered("Apache-2.0", "GPL-3.0-or-later")
    assert not covered("Apache-2.0", "GPL-2.0-only") and not covered("Apache-2.0", "GPL-2.0-or-later")
    assert covered("LGPL-3.0-or-later", "GPL-3.0-or-later") and not covered("LGPL-3.0-or-later", "GPL-2.0-only")
    assert covered("GPL-2.0-or-later", "GPL-3.0-or-later") and not covered("GPL-2.0-only", "GPL-3.0-or-later")
    assert not covered("GPL-3.0-only", "GPL-3.0-or-later") and covered("GPL-3.0-only", "GPL-3.0-only")
    assert covered("LGPL-2.1-only", "GPL-3.0-or-later") and not covered("LGPL-2.1-only", "MIT")
    assert covered("BSD-3-Clause OR GPL-2.0-only", "GPL-3.0-or-later")  # zstd: one alternative is enough
    assert not covered("MIT AND GPL-2.0-only", "GPL-3.0-or-later")  # every part of an AND
    assert covered("Apache-2.0 WITH Swift-exception", "GPL-3.0-or-later")
    assert check_licences.uncovered("LicenseRef-made-up", "GPL-3.0-or-later") == ["LicenseRef-made-up"]
    for malformed in ("MIT AND", "(MIT", "MIT OR OR ISC", "MIT ISC"):
        with pytest.raises(ValueError):
            check_licences.parse(malformed)


def test_the_table_has_a_rule_for_every_licence_and_rows_for_both_releases():
    def ids(node):
        return [node[1]] if node[0] == "id" else [i for child in node[1] for i in ids(child)]
    for package, (releases, licence, where) in TABLE.items():
        assert set(releases.split()) <= {"bookworm", "trixie", "static"}, package
        assert where, package
        for licence_id in ids(check_licences.parse(licence)):
            assert licence_id in check_licences.RULES, f"{package}: no rule for {licence_id}"
    for package in ("libavcodec59", "libavcodec61", "libx265-199", "libx265-215", "libcurl4", "libcurl4t64",
                    "libssl3", "libssl3t64", "libheif1", "libde265-0", "libvpx7", "libvpx9", "libsharpyuv0"):
        assert package in TABLE, package
    assert DECLARED in check_licences.DECLARABLE


def test_the_cli_fails_and_names_the_library(tmp_path):
    worker = stage(tmp_path, [("libmystery.so.1", "libmystery1")])
    run = subprocess.run([sys.executable, str(HERE / "check_licences.py"), str(worker)], capture_output=True,
                         text=True)
    assert run.returncode == 1
    assert f"the packages declare {DECLARED}" in run.stderr and "libmystery1" in run.stderr


def test_the_wheel_and_package_json_state_the_declared_licence(tmp_path):
    client = tmp_path / "photoworker_client"
    client.mkdir()
    (client / "__init__.py").write_text("")
    worker = stage(tmp_path, [])
    readme = tmp_path / "README.md"
    readme.write_text("# photoworker\n")
    out = tmp_path / "dist"
    subprocess.run([sys.executable, str(HERE / "wheel.py"), "--version", "0.0.1", "--platform",
                    "manylinux_2_35_x86_64", "--client", str(client), "--worker", str(worker), "--readme",
                    str(readme), "--out", str(out)], check=True, capture_output=True)
    with zipfile.ZipFile(next(out.glob("*.whl"))) as wheel:
        metadata = wheel.read("photoworker-0.0.1.dist-info/METADATA").decode()
        assert "photoworker_client/_worker/licenses/LICENSE" in wheel.namelist()
    assert [line for line in metadata.splitlines() if line.startswith("License")] == [f"License: {DECLARED}"]

    manifest = subprocess.run([sys.executable, str(HERE / "npm_manifest.py"), "--version", "0.0.1", "--template",
                               str(ROOT / "clients" / "node" / "package.json")],
                              check=True, capture_output=True, text=True).stdout
    assert json.loads(manifest)["license"] == DECLARED
