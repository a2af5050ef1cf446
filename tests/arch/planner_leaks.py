#!/usr/bin/env python3
"""Which planner headers web/ reaches through other headers (issue 43): follows each web file's
quoted includes transitively over the project's own headers (core/, web/, cli/, wasm/, resolved
by file name as the include paths do) and reports every (gate, planner header) pair, where the
gate is the last non-planner header on the way. A direct include from web/ is the other check's
business (check_includes.sh); here the gates are core/operations headers whose declarations
expose a planner's types. Each pair must be listed, with its reason, in
tests/arch/web_planner_leaks.txt ("GATE HEADER  # why"); a listed pair no longer reached fails
too, so the list only shrinks.
Usage: planner_leaks.py REPO_ROOT"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def project_headers(root):
    """Header file name -> path, over the folders the build puts on the include path."""
    found = {}
    for top in ("core", "web", "cli", "wasm"):
        for folder, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if f.endswith(".h"):
                    found.setdefault(f, os.path.relpath(os.path.join(folder, f), root))
    return found


def includes(root, path, cache):
    if path not in cache:
        with open(os.path.join(root, path), encoding="utf-8") as f:
            cache[path] = [os.path.basename(h) for h in INCLUDE.findall(f.read())]
    return cache[path]


def is_planner(path):
    return path.startswith("core/alpa/") or path.startswith("core/flexflow/")


def leaks(root):
    headers = project_headers(root)
    cache = {}
    pairs = set()
    for folder, _, files in os.walk(os.path.join(root, "web")):
        for f in files:
            if not f.endswith((".h", ".cpp")):
                continue
            start = os.path.relpath(os.path.join(folder, f), root)
            seen = {start}
            stack = [(start, start)]   # (file, the last non-planner file on the way to it)
            while stack:
                path, gate = stack.pop()
                for name in includes(root, path, cache):
                    target = headers.get(name)
                    if target is None or target in seen:
                        continue
                    seen.add(target)
                    if is_planner(target):
                        if not gate.startswith("web/"):   # direct includes: check_includes.sh
                            pairs.add((gate, target))
                        continue   # a planner header's own includes are the planner's business
                    stack.append((target, target))
    return pairs


def main():
    root = sys.argv[1]
    listed_file = os.path.join(root, "tests/arch/web_planner_leaks.txt")
    listed = set()
    with open(listed_file, encoding="utf-8") as f:
        for line in f:
            words = line.split("#", 1)[0].split()
            if len(words) == 2:
                listed.add(tuple(words))
    found = leaks(root)
    status = 0
    new = sorted(found - listed)
    if new:
        print("planner_leaks: web/ reaches a planner's header through a header not listed in "
              "tests/arch/web_planner_leaks.txt:", file=sys.stderr)
        for gate, header in new:
            print(f"  {gate} {header}", file=sys.stderr)
        print("  give the page a view value (core/operations) instead of the planner's type", file=sys.stderr)
        status = 1
    gone = sorted(listed - found)
    if gone:
        print("planner_leaks: listed but no longer reached (remove the line):", file=sys.stderr)
        for gate, header in gone:
            print(f"  {gate} {header}", file=sys.stderr)
        status = 1
    if status == 0:
        print(f"planner_leaks: web/ reaches planner headers only through the {len(found)} listed gates")
    return status


if __name__ == "__main__":
    sys.exit(main())
