"""Files of JSON lines, read one way for the whole host side: the verdict
(verdict.py, from what a guest sent, which may be cut off or garbled) and
the analysis (report.py, from results saved on the host).

read(path, strict) gives [(line number, object)] for every non-blank line.
strict: a file that cannot be read, a line that is not a JSON object, or
text that is not UTF-8 raises Error naming the file (and line), for a tool
that must stop on bad input.  Not strict: they come back as records the
verdict fails by name, {"type": "missing", "path", "error"} and {"type":
"malformed", "n", "line"}, bad bytes replaced, so that one garbled line
never hides the results around it."""
import json


class Error(Exception):
    pass


def read(path, strict=False):
    out = []
    try:
        f = open(path, encoding="utf-8", errors="strict" if strict else "replace")
    except OSError as e:
        if strict:
            raise Error(f"cannot read {path}: {e.strerror}")
        return [(0, {"type": "missing", "path": path, "error": str(e)})]
    with f:
        try:
            for n, line in enumerate(f, 1):
                line = line.strip()
                if line:
                    out.append((n, parse(path, n, line, strict)))
        except UnicodeDecodeError:
            raise Error(f"{path}: not UTF-8 text")
    return out


def parse(path, n, line, strict):
    """One line's object, or in its place the error (strict) or record."""
    try:
        r = json.loads(line)
    except ValueError:
        r = None
        if strict:
            raise Error(f"{path}:{n}: not JSON: {line[:60]}")
    if isinstance(r, dict):
        return r
    if strict:
        raise Error(f"{path}:{n}: not a JSON object")
    return {"type": "malformed", "n": n, "line": line[:80]}
