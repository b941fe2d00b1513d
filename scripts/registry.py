"""The case registry, guest/cases.txt, for the host's Python: one row per
workload case, columns separated by "|", "-" for empty, and "NAME: value"
settings lines (where the suite runs its cases).  The guest reads the same
file with case_list() and case_setting() in guest/lib.sh.

read() checks the file as a whole, so that a typo fails here with its
line number rather than as a case that silently never runs."""
import os

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PATH = os.path.join(TOP, "guest", "cases.txt")
# Columns that order a list: each holds a position (1, 2, ...) or "-".
LISTS = ("test", "run", "bench", "icount", "table", "iozone")
COLUMNS = ("case",) + LISTS + ("target", "goal", "as", "2013")
SETTINGS = ("dirs", "corrupt_dir")


def setting_line(line):
    """(name, value) of a "NAME: value" line, else None."""
    name, sep, value = line.partition(":")
    if sep and "|" not in line and name.strip() in SETTINGS:
        return name.strip(), value.strip()
    return None


def settings(path=PATH):
    """{name: value} of the settings lines; ValueError if one is missing."""
    with open(path, encoding="utf-8") as f:
        got = dict(filter(None, (setting_line(ln) for ln in f if not ln.startswith("#"))))
    missing = [s for s in SETTINGS if not got.get(s)]
    if missing:
        raise ValueError(f"{path}: no setting {', '.join(missing)}")
    return got


def read(path=PATH):
    """[{column: value or None}] in file order; ValueError names the line."""
    rows, header = [], None
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#") or setting_line(line):
                continue
            cells = [c.strip() for c in line.split("|")]
            if header is None:
                header = cells
                missing = [c for c in COLUMNS if c not in header]
                if missing:
                    raise ValueError(f"{path}:{n}: header lacks column(s) {', '.join(missing)}")
                continue
            if len(cells) != len(header):
                raise ValueError(f"{path}:{n}: {len(cells)} columns, the header has {len(header)}")
            row = {h: (None if c == "-" else c) for h, c in zip(header, cells)}
            if not row["case"]:
                raise ValueError(f"{path}:{n}: no case")
            wl = row["case"].split()[0]
            if not os.path.exists(os.path.join(TOP, "workloads", wl + ".c")):
                raise ValueError(f"{path}:{n}: no workload {wl} (workloads/{wl}.c)")
            for col in LISTS + ("target",):
                v = row[col]
                try:
                    row[col] = None if v is None else (float(v) if col == "target" else int(v))
                except ValueError:
                    raise ValueError(f"{path}:{n}: {col} '{v}' is not a number")
            rows.append(row)
    if header is None:
        raise ValueError(f"{path}: no header line")
    cases = [r["case"] for r in rows]
    dup = sorted({c for c in cases if cases.count(c) > 1})
    if dup:
        raise ValueError(f"{path}: case(s) listed twice: {', '.join(dup)}")
    for col in LISTS:
        pos = [r[col] for r in rows if r[col] is not None]
        if sorted(pos) != list(range(1, len(pos) + 1)):
            raise ValueError(f"{path}: column {col} is not the positions 1..{len(pos)}: {sorted(pos)}")
    return rows


def ordered(rows, col):
    """The rows in list col, in its order."""
    return sorted((r for r in rows if r[col] is not None), key=lambda r: r[col])
