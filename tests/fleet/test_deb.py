# SPDX-License-Identifier: MIT
# The Debian package CPack builds from the build directory: Depends computed by dpkg-shlibdeps
# (every library the binary loads is in a package it depends on, with the version its symbols
# need; none is hard-coded), the maintainer, copyright (MIT, as the LICENSE and the SPDX lines),
# changelog, docs/profile.md and the example profile, and lintian with no error or warning.
# Exits 77 when cpack, dpkg-deb or (for fleet_lintian) lintian is not installed (Debian packages
# cmake, dpkg-dev, lintian).
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import hwctest  # noqa: E402

BUILD = hwctest.take_option("--build-dir")

# CTest fleet_lintian runs `--lintian Package.test_lintian`; fleet_deb the others.
LINTIAN = "--lintian" in sys.argv
if LINTIAN:
    sys.argv.remove("--lintian")

TOOLS = all(shutil.which(t) for t in ("cpack", "dpkg-deb", "dpkg-shlibdeps"))


@unittest.skipUnless(BUILD and TOOLS, "needs --build-dir, cpack, dpkg-deb and dpkg-shlibdeps")
class Package(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cp = subprocess.run(["cpack", "-G", "DEB", "-B", cls.tmp, "--config",
                             os.path.join(BUILD, "CPackConfig.cmake")],
                            capture_output=True, text=True, cwd=BUILD, timeout=600)
        assert cp.returncode == 0, cp.stdout + cp.stderr
        debs = [f for f in os.listdir(cls.tmp) if f.endswith(".deb")]
        assert len(debs) == 1, os.listdir(cls.tmp)
        cls.deb = os.path.join(cls.tmp, debs[0])
        cls.tree = os.path.join(cls.tmp, "tree")
        subprocess.run(["dpkg-deb", "-x", cls.deb, cls.tree], check=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def field(self, f):
        return subprocess.run(["dpkg-deb", "-f", self.deb, f], capture_output=True, text=True).stdout.strip()

    def test_depends_are_computed(self):
        deps = {d.strip().split()[0]: d.strip() for d in self.field("Depends").split(",")}
        for lib in ("libc6", "libpci3", "libjansson4", "libibverbs1", "librdmacm1"):
            self.assertIn(lib, deps)
        # versions come from the libraries' symbols files, not from a hand-written list
        self.assertRegex(deps["libc6"], r"^libc6 \(>= [0-9.]+\)$")
        cml = open(hwctest.source("CMakeLists.txt")).read()
        self.assertNotIn("CPACK_DEBIAN_PACKAGE_DEPENDS", cml)
        self.assertRegex(cml, r"CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON")
        # every library the installed binary links (NEEDED) belongs to a package it depends on
        binary = os.path.join(self.tree, "usr/bin/hwcheck")
        needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(\S+)\]",
                            subprocess.run(["readelf", "-d", binary], capture_output=True, text=True).stdout)
        ldd = dict(re.findall(r"^\s*(\S+) => (/\S+)", subprocess.run(["ldd", binary], capture_output=True,
                                                                      text=True).stdout, re.M))
        self.assertGreater(len(needed), 4, needed)
        for soname in needed:
            lib = ldd[soname]
            real = os.path.realpath(lib)
            owner = ""
            for path in (lib, real, "/usr" + real if not real.startswith("/usr") else real[4:]):
                cp = subprocess.run(["dpkg", "-S", path], capture_output=True, text=True)
                if cp.returncode == 0:
                    owner = cp.stdout.split(":")[0]
                    break
            self.assertIn(owner, deps, f"{lib} (package {owner or '?'}) is not in Depends: {deps}")
        self.assertIn("mstflint", self.field("Recommends"))

    def test_control_fields(self):
        m = self.field("Maintainer")
        self.assertRegex(m, r"^[^<>]+ <[^@<>\s]+@[^@<>\s]+\.[a-z]+>$")
        self.assertNotIn("localhost", m)
        desc = self.field("Description").splitlines()
        self.assertGreater(len(desc), 2)
        self.assertNotEqual(desc[0].strip(), desc[1].strip())
        self.assertTrue(all(len(l) <= 80 for l in desc), desc)

    def test_license_copyright_changelog(self):
        doc = os.path.join(self.tree, "usr/share/doc/hwcheck")
        lic = open(hwctest.source("LICENSE")).read()
        self.assertTrue(lic.startswith("MIT License"))
        # the SPDX lines of the sources say the same
        self.assertIn("SPDX-License-Identifier: MIT", open(hwctest.source("cli", "main.c")).read())
        cr = open(os.path.join(doc, "copyright")).read()
        self.assertTrue(cr.startswith("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"))
        self.assertIn("License: MIT", cr)
        body = " ".join(l.strip() for l in lic.split("\n\n", 2)[2].split())
        self.assertIn(body[:200], " ".join(l.strip(" .") for l in cr.split()))
        ch = gzip.open(os.path.join(doc, "changelog.gz"), "rt").read()
        version = self.field("Version")
        self.assertTrue(ch.startswith(f"hwcheck ({version}) "), ch[:80])
        self.assertIn(f" -- {self.field('Maintainer')}  ", ch)

    def test_docs_and_profiles(self):
        doc = os.path.join(self.tree, "usr/share/doc/hwcheck")
        self.assertEqual(open(os.path.join(doc, "profile.md")).read(),
                         open(hwctest.source("docs", "profile.md")).read())
        ex = os.path.join(doc, "examples", "profile-example.json")
        # the installed example is a profile the installed binary accepts
        cp = subprocess.run([hwctest.hwcheck_path(), "--profile", ex, "--facts",
                             hwctest.fixture("diff-unchanged", "after.json")], capture_output=True, text=True)
        self.assertIn(cp.returncode, (0, 1), cp.stderr)
        self.assertTrue(os.path.isfile(os.path.join(self.tree, "usr/share/hwcheck/default-profile.json")))
        self.assertTrue(os.path.isfile(os.path.join(self.tree, "usr/share/man/man1/hwcheck.1.gz")))

    @unittest.skipUnless(LINTIAN, "run by fleet_lintian")
    @unittest.skipUnless(shutil.which("lintian"), "lintian not installed (Debian package lintian)")
    def test_lintian(self):
        cp = subprocess.run(["lintian", "--no-cfg", "--fail-on", "error,warning", "--display-info",
                             self.deb], capture_output=True, text=True, timeout=600)
        tags = [l for l in cp.stdout.splitlines() if re.match(r"^[EW]: ", l)]
        self.assertEqual(tags, [], cp.stdout + cp.stderr)
        self.assertEqual(cp.returncode, 0, cp.stdout + cp.stderr)


if __name__ == "__main__":
    hwctest.main()
