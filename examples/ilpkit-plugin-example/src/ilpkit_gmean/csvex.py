"""The ``csvex`` dataset format: Aleph background in ``background.pl``, examples in
``examples.csv`` (``example,label`` rows, label 1 or 0).

A format is an object with ``name``, ``description``, ``detect``, ``load`` and ``write``
(:class:`ilpkit.core.formats.DatasetFormat`). This one reuses ilpkit's own Aleph reader,
found by name through the plugin manager, for the background and builds the examples from
the CSV file.
"""

from __future__ import annotations

import csv
import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np

from ilpkit.core.formats.confine import own_files
from ilpkit.core.plugins import get_plugin_manager
from ilpkit.core.task import NEG, POS, Task
from ilpkit.errors import FormatError

BACKGROUND = "background.pl"
EXAMPLES = "examples.csv"


class CsvExamplesFormat:
    name = "csvex"
    description = f"csvex: {BACKGROUND} (Aleph background and modes) + {EXAMPLES} (example,label)"

    def detect(self, path: Path) -> str | None:
        if path.is_dir() and (path / BACKGROUND).is_file() and (path / EXAMPLES).is_file():
            return f"{BACKGROUND} + {EXAMPLES}"
        return None

    def load(self, path: Path, *, stem: str | None = None) -> Task:
        if self.detect(path) is None:
            raise FormatError(f"{path}: expected a folder with {BACKGROUND} and {EXAMPLES}")
        pos, neg = [], []
        with open(path / EXAMPLES, newline="", encoding="utf-8") as handle:
            for line, row in enumerate(csv.reader(handle), 1):
                if line == 1 and row[:2] == ["example", "label"]:
                    continue
                if len(row) != 2 or row[1].strip() not in ("0", "1"):
                    raise FormatError(f"{path / EXAMPLES}:{line}: expected example,label (1/0)")
                (pos if row[1].strip() == "1" else neg).append(row[0].strip())
        aleph = get_plugin_manager().make("format", "aleph")
        with tempfile.TemporaryDirectory() as tmp:
            stem_path = Path(tmp) / "task"
            text = (path / BACKGROUND).read_text(encoding="utf-8")
            stem_path.with_suffix(".b").write_text(text, encoding="utf-8")
            stem_path.with_suffix(".f").write_text("".join(f"{a}.\n" for a in pos))
            stem_path.with_suffix(".n").write_text("".join(f"{a}.\n" for a in neg))
            # the converted copy is this format's own: ilpkit confines what data may read
            # to the data folder, and this block makes the copy's folder that folder
            with own_files(Path(tmp)):
                task: Task = aleph.load(stem_path)
        sources = [str(path / BACKGROUND), str(path / EXAMPLES)]
        return replace(task, name=path.name, format=self.name, sources=sources)

    def write(self, task: Task, dest: Path) -> list[Path]:
        aleph = get_plugin_manager().make("format", "aleph")
        # folds have no csvex syntax: one pool of examples
        pooled = replace(task.examples, folds=np.full_like(task.examples.folds, -1))
        plain = replace(task, fold_names=[], examples=pooled)
        dest.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            written = aleph.write(plain, Path(tmp))
            (background,) = [p for p in written if p.suffix == ".b"]
            (dest / BACKGROUND).write_text(background.read_text(encoding="utf-8"))
        ex = task.examples
        with open(dest / EXAMPLES, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["example", "label"])
            for atom, label in zip(ex.atoms, ex.labels.tolist(), strict=True):
                if label in (POS, NEG):
                    writer.writerow([str(atom), 1 if label == POS else 0])
        return [dest / BACKGROUND, dest / EXAMPLES]


FORMAT = CsvExamplesFormat()
