#!/usr/bin/env python3
"""function_lengths.py -- the length of every function definition in C files.

Usage: function_lengths.py [--max N] FILE...
Prints "LINES FILE:LINE NAME" for each function longer than N lines (default:
every function), longest first; exits 1 if any function exceeds --max.  A
function runs from the line of its name to its closing brace.  Comments,
strings and character literals are skipped; preprocessor lines are ignored.
"""
import re
import sys


def strip_code(text):
    """text with comments, strings and char literals blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    """(name, first line, last line) of each top-level function body."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = strip_code(f.read()).split("\n")
    lines = ["" if l.lstrip().startswith("#") else l for l in lines]
    code = "\n".join(lines)
    depth, start, found = 0, None, []
    for m in re.finditer(r"[{}]", code):
        line = code.count("\n", 0, m.start()) + 1
        if m.group() == "{":
            if depth == 0:
                head = code[: m.start()].rstrip()
                if head.endswith(")"):  # a function body, not an initializer
                    k = head.rfind("(")
                    depth_p = 0
                    for k in range(len(head) - 1, -1, -1):
                        depth_p += {")": 1, "(": -1}.get(head[k], 0)
                        if depth_p == 0:
                            break
                    name = re.findall(r"(\w+)\s*$", head[:k])
                    start = (name[0] if name else "?", head.count("\n", 0, k) + 1)
                else:
                    start = None
            depth += 1
        else:
            depth -= 1
            if depth == 0 and start:
                found.append((start[0], start[1], line))
                start = None
    return found


def main(argv):
    limit = None
    if len(argv) > 1 and argv[0] == "--max":
        limit, argv = int(argv[1]), argv[2:]
    rows = []
    for path in argv:
        for name, a, b in functions(path):
            rows.append((b - a + 1, path, a, name))
    rows.sort(reverse=True)
    over = [r for r in rows if limit is None or r[0] > limit]
    for n, path, a, name in over:
        print(f"{n} {path}:{a} {name}")
    return 1 if limit is not None and over else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
