"""Stand-in for the OpenAI client's fine-tuning calls.

files.create reads the file as the API would: JSON Lines, at least 10 rows
(the fine-tuning minimum), each row only its method's fields.
jobs.create takes file ids files.create gave and a method it knows.
"""
import json

_FIELDS = {
    "supervised": {"messages"},
    "dpo": {"input", "preferred_output", "non_preferred_output"},
}
_MIN_ROWS = 10


class _File:
    def __init__(self, id, fields, rows):
        self.id, self.fields, self.rows = id, fields, rows


class _Files:
    def __init__(self):
        self.made = {}

    def create(self, file, purpose):
        if purpose != "fine-tune":
            raise ValueError("purpose must be fine-tune")
        rows = [json.loads(line) for line in file.read().decode("utf-8").splitlines() if line.strip()]
        fields = set()
        for r in rows:
            fields |= set(r)
        f = _File("file-%d" % len(self.made), fields, len(rows))
        self.made[f.id] = f
        return f


class _Jobs:
    def __init__(self, files):
        self.files = files

    def create(self, model, training_file, method, validation_file=None):
        want = _FIELDS[method["type"]]
        for name, fid in (("training_file", training_file), ("validation_file", validation_file)):
            if fid is None:
                continue
            f = self.files.made.get(fid)
            if f is None:
                raise ValueError("%s: no such file %r" % (name, fid))
            if f.rows < _MIN_ROWS:
                raise ValueError("%s has %d examples; fine-tuning needs at least %d" % (name, f.rows, _MIN_ROWS))
            if f.fields != want:
                raise ValueError("%s has fields %s; %s takes %s" % (name, sorted(f.fields), method["type"], sorted(want)))


class _FineTuning:
    def __init__(self, files):
        self.jobs = _Jobs(files)


class OpenAI:
    def __init__(self):
        self.files = _Files()
        self.fine_tuning = _FineTuning(self.files)
