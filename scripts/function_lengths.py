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


# a comment, a string or a character literal (an unterminated one runs to the end)
_NOISE = re.compile(r"""/\*.*?(?:\*/|\Z)|//[^\n]*|"(?:\\.|[^"\\])*(?:"|\Z)|'(?:\\.|[^'\\])*(?:'|\Z)""", re.S)


def _blank(m):
    """A comment blanked (its newlines kept); a literal kept as its quotes around blanks."""
    t = m.group()
    if t[0] in "\"'":
        return t[0] + re.sub(r"[^\n]", " ", t[1:-1]) + t[0] if len(t) > 1 else t
    return re.sub(r"[^\n]", " ", t)


def strip_code(text):
    """text with comments, strings and char literals blanked (newlines kept)."""
    return _NOISE.sub(_blank, text)


def functions(path):
    """(name, first line, last line) of each top-level function body."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = strip_code(f.read()).split("\n")
    lines = ["" if l.lstrip().startswith("#") else l for l in lines]
    code = "\n".join(lines)
    depth, start, found = 0, None, []
    line, pos = 1, 0  # the line of offset pos, counted as the braces go by
    for m in re.finditer(r"[{}]", code):
        line += code.count("\n", pos, m.start())
        pos = m.start()
        if m.group() == "{":
            if depth == 0:
                start = function_head(code, m.start(), line)
            depth += 1
        else:
            depth -= 1
            if depth == 0 and start:
                found.append((start[0], start[1], line))
                start = None
    return found


def function_head(code, brace, line):
    """(name, line of the name) when the '{' at offset brace (on line) opens a
    function body: what precedes it ends with a parameter list; else None."""
    end = brace
    while end > 0 and code[end - 1].isspace():
        end -= 1
    if end == 0 or code[end - 1] != ")":
        return None  # an initializer, not a function body
    depth_p, k = 0, end - 1
    while k >= 0:
        depth_p += {")": 1, "(": -1}.get(code[k], 0)
        if depth_p == 0:
            break
        k -= 1
    name = re.search(r"(\w+)\s*$", code[max(0, k - 200):max(k, 0)])
    return (name.group(1) if name else "?", line - code.count("\n", k, brace))


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
