"""Build the four PU tasks of ticer-pu-relational.txt (Table 1) from ``../shared/data``.

Each task is written as an Aleph dataset (``<task>.b`` with modes, determinations and the
background facts; examples in ``<task>.f/.n`` or, where the data groups related objects, in
fold files ``fs/f<k>.f/.n``) under ``--out`` (default ``runs/pu-data``).  The class
predicates themselves, and predicates that state the class outright, are left out of the
background.  What each task is, against the paper's:

* ``imdb``: actor (236) vs director (32), IMDB of ilp-experiments (the paper's counts);
  background movie/2, gender/2, genre/2 without actor/1, director/1; 5 stratified folds.
* ``mutagenesis``: active (138) vs inactive (92), all 230 drugs (188 regression-friendly +
  42 unfriendly); atoms, bonds, lumo, logp (no ring-perception predicates); 5 stratified folds.
* ``uwcse``: student (216) vs professor (62), UW-CSE of the bundled aleph_yap copy; without
  student/1, professor/1 and the predicates that state the class (position/2, phase/2,
  yearsinprogram/2); folds: the five research areas (persons placed by the area in which they
  occur in advisedby/2 examples; the others in no fold, i.e. always training).
* ``webkb``: faculty (153) vs other persons' pages (593), WebKB of srlearn, folds: the four
  universities (each srlearn fold's test set); without student/1.  The paper's WebKB task is
  person (590) vs other (332) pages with word features, which this copy does not hold.

Each ``.b`` ends with the head type's facts (``person(X).`` for every example object): Aleph's
``evalfn(posonly)`` draws its random examples from them.

Each task is also written with its classes swapped (``imdb-director``, ``mutagenesis-inactive``,
``uwcse-professor``, ``webkb-nonfaculty``): the paper labels either class of a data set as the
positive one ("UW-CSE (Prof)", "WebKB (Other)").

Run: ``python benchmarks/pu_tasks.py [--shared ../shared/data] [--out runs/pu-data]``.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FACT = re.compile(r"^([a-z][a-zA-Z0-9_]*)\((.*)\)\.\s*$")
VARIABLE = re.compile(r"(?:^|[(,\s])[A-Z_]")


def facts(path: Path, keep: Iterable[str] | None = None, drop: Iterable[str] = ()) -> list[str]:
    """Ground facts (one per line) of ``path``, by predicate name."""
    keep_set, drop_set = (set(keep) if keep is not None else None), set(drop)
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        m = FACT.match(line)  # unindented: rule bodies are indented
        if not m or VARIABLE.search(m.group(2)):
            continue
        name = m.group(1)
        if name in drop_set or (keep_set is not None and name not in keep_set):
            continue
        out.append(line.strip())
    return out


def args_of(line: str) -> list[str]:
    m = FACT.match(line)
    assert m is not None
    return [a.strip() for a in m.group(2).split(",")]


def write_task(
    folder: Path,
    stem: str,
    header: list[str],
    background: list[str],
    pos: list[str],
    neg: list[str],
    folds: dict[str, int] | None = None,
) -> None:
    """``folds`` maps an example's argument to its fold (grouped folds); None: one file pair."""
    folder.mkdir(parents=True, exist_ok=True)
    # the head's type as facts, one per example object: Aleph's posonly draws its random
    # examples from them (no body mode uses the type, so other learners see no change)
    head_type = header_type(header, stem)
    types = [f"{head_type}({a})." for a in sorted(set(pos + neg))]
    text = "\n".join(header + background + types) + "\n"
    (folder / f"{stem}.b").write_text(text, encoding="utf-8")
    if folds is None:
        (folder / f"{stem}.f").write_text("".join(f"{stem}({a}).\n" for a in pos))
        (folder / f"{stem}.n").write_text("".join(f"{stem}({a}).\n" for a in neg))
        return
    fs = folder / "fs"
    fs.mkdir(exist_ok=True)
    for k in sorted(set(folds.values())):
        for ext, objs in (("f", pos), ("n", neg)):
            text = "".join(f"{stem}({a}).\n" for a in objs if folds.get(a) == k)
            (fs / f"f{k}.{ext}").write_text(text, encoding="utf-8")
    unplaced = [a for a in pos + neg if a not in folds]
    if unplaced:
        # persons in no fold: Aleph fold files cannot hold them, so they are left out
        print(f"{stem}: {len(unplaced)} examples in no fold are left out")


def header_type(header: list[str], stem: str) -> str:
    """The type of the head mode's only argument (``modeh(1,student(+person))``: person)."""
    for line in header:
        m = re.search(rf"modeh\(\w+,{stem}\(\+(\w+)\)\)", line)
        if m:
            return m.group(1)
    raise ValueError(f"no modeh for {stem}/1 in the header")


def write_both(
    folder: Path,
    stems: tuple[str, str],
    header: list[str],
    background: list[str],
    pos: list[str],
    neg: list[str],
    folds: dict[str, int] | None = None,
) -> None:
    """The task in both directions, as the paper labels either class positive: ``folder``
    with ``stems[0]`` the positive class, ``folder-<stems[1]>`` with the classes swapped
    (e.g. "UW-CSE (Prof)", "WebKB (Other)")."""
    write_task(folder, stems[0], header, background, pos, neg, folds)
    swapped = [
        line.replace(f"{stems[0]}(", f"{stems[1]}(").replace(f"{stems[0]}/1", f"{stems[1]}/1")
        for line in header
    ]
    write_task(
        folder.with_name(f"{folder.name}-{stems[1]}"),
        stems[1],
        swapped,
        background,
        neg,
        pos,
        folds,
    )


def imdb(shared: Path, out: Path) -> None:
    bk = shared / "imdb/prolog_ilpexp/bk.pl"
    pos = [args_of(f)[0] for f in facts(bk, keep=["actor"])]
    neg = [args_of(f)[0] for f in facts(bk, keep=["director"])]
    header = [
        ":- set(i,3).",
        ":- modeh(1,actor(+person)).",
        ":- modeb(*,movie(-movie,+person)).",
        ":- modeb(*,movie(+movie,-person)).",
        ":- modeb(1,gender(+person,#gender)).",
        ":- modeb(*,genre(+person,#genre)).",
        *(f":- determination(actor/1,{p})." for p in ("movie/2", "gender/2", "genre/2")),
    ]
    background = facts(bk, keep=["movie", "gender", "genre"])
    write_both(out / "imdb", ("actor", "director"), header, background, pos, neg)


def mutagenesis(shared: Path, out: Path) -> None:
    base = shared / "mutagenesis/prolog_ilpexp"
    exs = (base / "exs.pl").read_text() + (base / "exs_non_regression_friendly.pl").read_text()
    pos = re.findall(r"pos\(active\((\w+)\)\)", exs)
    neg = re.findall(r"neg\(active\((\w+)\)\)", exs)
    header = [
        ":- set(i,2).",
        ":- modeh(1,active(+drug)).",
        ":- modeb(*,atm(+drug,-atomid,#element,#int,-charge)).",
        ":- modeb(*,bond(+drug,+atomid,-atomid,#int)).",
        ":- modeb(1,lumo(+drug,-energy)).",
        ":- modeb(1,logp(+drug,-hydrophob)).",
        *(f":- determination(active/1,{p})." for p in ("atm/5", "bond/4", "lumo/2", "logp/2")),
    ]
    background = facts(base / "bk.pl", keep=["atm", "bond", "lumo", "logp"])
    write_both(out / "mutagenesis", ("active", "inactive"), header, background, pos, neg)


def uwcse(out: Path) -> None:
    data = ROOT / "ilpkit/datasets/uwcse"
    bg = data / "bg.yap"
    pos = [args_of(f)[0] for f in facts(bg, keep=["student"])]
    neg = [args_of(f)[0] for f in facts(bg, keep=["professor"])]
    area: dict[str, int] = {}
    for k in range(5):
        for ext in ("f", "n"):
            for line in facts(data / "fs" / f"f{k}.{ext}"):
                for person in args_of(line):
                    area.setdefault(person, k)
    header = [
        ":- set(i,2).",
        ":- modeh(1,student(+person)).",
        ":- modeb(*,advisedby(+person,-person)).",
        ":- modeb(*,advisedby(-person,+person)).",
        ":- modeb(*,tempadvisedby(+person,-person)).",
        ":- modeb(*,tempadvisedby(-person,+person)).",
        ":- modeb(*,publication(-title,+person)).",
        ":- modeb(*,taughtby(-course,+person,-quarter)).",
        ":- modeb(*,ta(-course,+person,-quarter)).",
        ":- modeb(1,courselevel(+course,#level)).",
        ":- modeb(*,projectmember(-project,+person)).",
        *(
            f":- determination(student/1,{p})."
            for p in (
                "advisedby/2",
                "tempadvisedby/2",
                "publication/2",
                "taughtby/3",
                "ta/3",
                "courselevel/2",
                "projectmember/2",
            )
        ),
    ]
    drop = ["student", "professor", "position", "phase", "yearsinprogram"]
    background = facts(bg, drop=drop)
    write_both(out / "uwcse", ("student", "professor"), header, background, pos, neg, area)


def webkb(shared: Path, out: Path) -> None:
    base = shared / "webkb/boostsrl_srlearn/webkb"
    pos: list[str] = []
    neg: list[str] = []
    folds: dict[str, int] = {}
    background: list[str] = []
    for k in range(4):
        test = base / f"fold{k + 1}" / "test"
        for name, into in (("test_pos.txt", pos), ("test_neg.txt", neg)):
            for line in facts(test / name):
                page = args_of(line)[0]
                into.append(page)
                folds.setdefault(page, k)
        background += facts(test / "test_facts.txt", drop=["student", "faculty"])
    header = [
        ":- set(i,2).",
        ":- modeh(1,faculty(+person)).",
        ":- modeb(*,courseprof(-course,+person)).",
        ":- modeb(*,courseta(-course,+person)).",
        ":- modeb(*,courseprof(+course,-person)).",
        ":- modeb(*,courseta(+course,-person)).",
        ":- modeb(*,project(-proj,+person)).",
        ":- modeb(*,project(+proj,-person)).",
        *(f":- determination(faculty/1,{p})." for p in ("courseprof/2", "courseta/2", "project/2")),
    ]
    write_both(
        out / "webkb", ("faculty", "nonfaculty"), header, sorted(set(background)), pos, neg, folds
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--out", type=Path, default=ROOT / "runs" / "pu-data")
    args = parser.parse_args()
    imdb(args.shared, args.out)
    mutagenesis(args.shared, args.out)
    uwcse(args.out)
    webkb(args.shared, args.out)
    print(f"tasks written to {args.out}")


if __name__ == "__main__":
    main()
