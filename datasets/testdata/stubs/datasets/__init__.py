"""Stand-in for Hugging Face datasets: load_dataset over a card's configs.

It reads the README.md front matter as datasets does (configs, data_files,
default; with PyYAML when python3 has it, else by hand), resolves each split's glob, and refuses what datasets refuses: an
unknown config, no config name when there is no default among several, a
split without files. JSON Lines rows are read; Parquet rows are counted
from manifest.json (no Parquet reader here).
"""
import glob
import json
import os

try:
    import yaml
except ImportError:  # parse the front matter cra writes by hand
    yaml = None


class Dataset:
    def __init__(self, rows, num_rows, split):
        self.rows = rows  # None for Parquet
        self.num_rows = num_rows
        self.split = split

    def __len__(self):
        return self.num_rows

    @property
    def column_names(self):
        if not self.rows:
            return None
        names = []
        for r in self.rows:
            for k in r:
                if k not in names:
                    names.append(k)
        return names


class DatasetDict(dict):
    pass


def _front_matter(path):
    text = open(os.path.join(path, "README.md"), encoding="utf-8").read()
    if not text.startswith("---\n"):
        raise ValueError("README.md has no YAML front matter")
    front = text[4:].split("\n---\n", 1)[0]
    if yaml is not None:
        return yaml.safe_load(front)
    return {"configs": _configs_by_hand(front)}


def _scalar(v):
    v = v.strip()
    if v in ("true", "false"):
        return v == "true"
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
        return v[1:-1]
    return v


def _configs_by_hand(front):
    """The configs: list as cra writes it, for a python3 without PyYAML:

    configs:
    - config_name: NAME
      default: true
      data_files:
      - split: SPLIT
        path: GLOB

    Other top-level keys and other keys of a config are skipped.
    """
    configs, in_configs, cfg, files = [], False, None, None
    for line in front.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line.startswith((" ", "-")):
            in_configs = line.rstrip() == "configs:"
            continue
        if not in_configs:
            continue
        if line.startswith("- "):
            cfg, files = {}, None
            configs.append(cfg)
            line = "  " + line[2:]
        key, _, value = line.strip().lstrip("- ").partition(":")
        if line.startswith("  ") and not line.startswith("   "):
            if line.startswith("  - ") and files is not None:
                files.append({key: _scalar(value)})
            elif key == "data_files":
                files = cfg["data_files"] = []
            else:
                cfg[key], files = _scalar(value), None
        elif line.startswith("    ") and not line.startswith("     ") and files:
            files[-1][key] = _scalar(value)
    return configs


def _config(meta, name):
    configs = meta.get("configs") or []
    if name is None:
        # datasets' MetadataConfigs.get_default_config_name: the only
        # config, else the one marked default; several defaults are an error.
        defaults = [c for c in configs if len(configs) == 1 or c["config_name"] == "default" or c.get("default")]
        if len(defaults) > 1:
            raise ValueError("Dataset has several default configs: %s" % [c["config_name"] for c in defaults])
        if not defaults:
            raise ValueError("Config name is missing. Please pick one among the available configs: %s"
                             % [c["config_name"] for c in configs])
        return defaults[0]
    for c in configs:
        if c["config_name"] == name:
            return c
    raise ValueError("BuilderConfig '%s' not found. Available: %s" % (name, [c["config_name"] for c in configs]))


def _manifest_rows(path):
    m = json.load(open(os.path.join(path, "manifest.json"), encoding="utf-8"))
    return {f["path"]: f["rows"] for f in m["files"]}


def _load_split(path, pattern, split):
    files = sorted(glob.glob(os.path.join(path, pattern)))
    if not files:
        raise FileNotFoundError("Unable to find '%s'" % pattern)
    if files[0].endswith(".jsonl"):
        rows = []
        for f in files:
            with open(f, encoding="utf-8") as fh:
                rows.extend(json.loads(line) for line in fh if line.strip())
        return Dataset(rows, len(rows), split)
    counts = _manifest_rows(path)
    n = sum(counts[os.path.relpath(f, path)] for f in files)
    return Dataset(None, n, split)


def load_dataset(path, name=None, split=None, **kwargs):
    if kwargs:
        raise TypeError("unexpected arguments: %s" % sorted(kwargs))
    cfg = _config(_front_matter(path), name)
    out = DatasetDict()
    for df in cfg["data_files"]:
        out[df["split"]] = _load_split(path, df["path"], df["split"])
    if split is not None:
        if split not in out:
            raise ValueError('Unknown split "%s". Should be one of %s.' % (split, list(out)))
        return out[split]
    return out
