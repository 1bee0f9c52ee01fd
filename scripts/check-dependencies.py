#!/usr/bin/env python3
"""Each target of Package.swift depends on exactly what its Swift files import (run by
scripts/check-layers.sh). Reads `swift package dump-package`'s JSON on standard input.
Not counted: the toolchain's own modules, CLazyLoad (included by C headers, not imported),
and the executables a test target runs."""
import glob
import json
import re
import sys

TOOLCHAIN = {"Foundation", "FoundationEssentials", "Synchronization", "Testing", "Dispatch", "Glibc", "Musl"}
IMPORT = re.compile(r"^(?:@testable |@_implementationOnly |public |internal |package )*import "
                    r"(?:struct |class |enum |func |protocol |typealias )?(\w+)")

package = json.load(sys.stdin)
executables = {t["name"] for t in package["targets"] if t["type"] == "executable"}
failed = False
for target in package["targets"]:
    if target["type"] == "system":
        continue
    name = target["name"]
    folder = target.get("path") or ("Tests/" if target["type"] == "test" else "Sources/") + name
    declared = {names[0] for dependency in target["dependencies"] for names in dependency.values()}
    imported = set()
    for path in glob.glob(folder + "/**/*.swift", recursive=True):
        with open(path, encoding="utf-8") as source:
            imported.update(m.group(1) for m in map(IMPORT.match, source) if m)
    unused = declared - imported - {"CLazyLoad"} - (executables if target["type"] == "test" else set())
    missing = imported - declared - TOOLCHAIN
    for module in sorted(unused):
        print(f"check-layers: {name} declares {module} in Package.swift but imports it nowhere")
        failed = True
    for module in sorted(missing):
        print(f"check-layers: {name} imports {module} without declaring it in Package.swift")
        failed = True
sys.exit(1 if failed else 0)
