#!/usr/bin/env python3
"""edits.py -- fuzz regression inputs derived from shared data files, kept as
byte edits of the shared file rather than as a copy (tests/fuzz/README.md,
"Regression inputs").  The shared files (../shared/datasets) are read in
place and never copied into the project; a crash found by mutating one is
stored as the few bytes that differ.

    edits.py make BASE_REL DATASETS INPUT > NAME.edits
        BASE_REL: the shared file, relative to DATASETS (the datasets folder);
        INPUT: the crashing input.  Writes the edits.
    edits.py reduce DATASETS NAME.edits CMD... > SMALLER.edits
        Drops edits (halves, quarters, ... single ones) as long as CMD FILE
        still exits 0 on the rebuilt input FILE ("still shows the finding"),
        and writes the edits that remain.
    edits.py apply DATASETS NAME.edits OUTPUT
        Rebuilds the input from the shared file; exit 77 (skip) when the
        shared file is absent, 1 when it is not the one the edits were made
        from (its size and SHA-256 are recorded), 0 when OUTPUT is written.

Format (text):
    base <path relative to the datasets folder>
    base-size <bytes>
    base-sha256 <hex>
    size <bytes of the input>
    sha256 <hex of the input>
    at <offset in the base> <bytes of the base replaced> <hex of the new bytes>
    ... (in increasing offset)
"""
import difflib
import hashlib
import os
import sys


def make(base_rel, datasets, path):
    base = open(os.path.join(datasets, base_rel), "rb").read()
    data = open(path, "rb").read()
    out = ["base %s" % base_rel, "base-size %d" % len(base),
           "base-sha256 %s" % hashlib.sha256(base).hexdigest(),
           "size %d" % len(data), "sha256 %s" % hashlib.sha256(data).hexdigest()]
    if len(base) == len(data):  # runs of differing bytes: linear
        i = 0
        while i < len(base):
            if base[i] == data[i]:
                i += 1
                continue
            j = i
            while j < len(base) and base[j] != data[j]:
                j += 1
            out.append("at %d %d %s" % (i, j - i, data[i:j].hex()))
            i = j
    else:  # a diff of what lies between the common prefix and suffix
        p = 0
        while p < min(len(base), len(data)) and base[p] == data[p]:
            p += 1
        q = 0
        while q < min(len(base), len(data)) - p and base[-1 - q] == data[-1 - q]:
            q += 1
        a, b = base[p:len(base) - q], data[p:len(data) - q]
        sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
        for tag, i1, i2, j1, j2 in sm.get_opcodes():
            if tag != "equal":
                out.append("at %d %d %s" % (p + i1, i2 - i1, b[j1:j2].hex()))
    sys.stdout.write("\n".join(out) + "\n")


def read_edits(edits):
    fields, ops = {}, []
    for line in open(edits):
        w = line.split()
        if not w or w[0].startswith("#"):
            continue
        if w[0] == "at":
            ops.append((int(w[1]), int(w[2]), bytes.fromhex(w[3] if len(w) > 3 else "")))
        else:
            fields[w[0]] = w[1]
    return fields, ops


def rebuild(base, ops):
    parts, pos = [], 0
    for at, length, new in ops:
        parts.append(base[pos:at])
        parts.append(new)
        pos = at + length
    parts.append(base[pos:])
    return b"".join(parts)


def reduce(datasets, edits, cmd):
    import subprocess
    import tempfile
    fields, ops = read_edits(edits)
    base = open(os.path.join(datasets, fields["base"]), "rb").read()
    tmp = tempfile.NamedTemporaryFile(delete=False)
    tmp.close()

    def interesting(o):
        open(tmp.name, "wb").write(rebuild(base, o))
        return subprocess.call(cmd + [tmp.name], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL) == 0

    if not interesting(ops):
        print("edits.py: the command does not accept the input as it is", file=sys.stderr)
        os.unlink(tmp.name)
        return 1
    chunk = max(1, len(ops) // 2)
    while True:
        i = 0
        while i < len(ops):
            trial = ops[:i] + ops[i + chunk:]
            if interesting(trial):
                ops = trial
            else:
                i += chunk
        if chunk == 1:
            break
        chunk //= 2
    data = rebuild(base, ops)
    open(tmp.name, "wb").write(data)
    make(fields["base"], datasets, tmp.name)
    os.unlink(tmp.name)
    return 0


def apply(datasets, edits, output):
    fields, ops = read_edits(edits)
    src = os.path.join(datasets, fields["base"])
    if not os.path.isfile(src):
        print("edits.py: %s absent: skipped" % src, file=sys.stderr)
        return 77
    base = open(src, "rb").read()
    if len(base) != int(fields["base-size"]) or \
            hashlib.sha256(base).hexdigest() != fields["base-sha256"]:
        print("edits.py: %s is not the file the edits were made from" % src, file=sys.stderr)
        return 1
    data = rebuild(base, ops)
    if hashlib.sha256(data).hexdigest() != fields["sha256"]:
        print("edits.py: %s: the rebuilt input does not match" % edits, file=sys.stderr)
        return 1
    open(output, "wb").write(data)
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "make":
        make(sys.argv[2], sys.argv[3], sys.argv[4])
        sys.exit(0)
    if len(sys.argv) >= 5 and sys.argv[1] == "reduce":
        sys.exit(reduce(sys.argv[2], sys.argv[3], sys.argv[4:]))
    if len(sys.argv) == 5 and sys.argv[1] == "apply":
        sys.exit(apply(sys.argv[2], sys.argv[3], sys.argv[4]))
    print(__doc__, file=sys.stderr)
    sys.exit(2)
