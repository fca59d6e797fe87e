"""Stand-in for TRL's SFT, DPO and KTO trainers (TRL f2cd577).

A trainer checks what the real one checks before it trains: train_dataset
is required ("`train_dataset` is required"), args is the trainer's own
config class, and every row has the fields the trainer reads, typed as it
reads them (trl/data_utils.py: a conversational SFT row is messages, or
prompt and completion; a preference row prompt, chosen, rejected; a KTO row
prompt, completion and a boolean label, which KTOTrainer sums). JSON Lines
rows are checked; Parquet rows are only counted.
"""
from datasets import Dataset


class _Config:
    def __init__(self, output_dir, **kwargs):
        if not output_dir:
            raise ValueError("output_dir is required")
        self.output_dir = output_dir
        self.__dict__.update(kwargs)


class SFTConfig(_Config):
    pass


class DPOConfig(_Config):
    pass


class KTOConfig(_Config):
    pass


def _is_messages(v):
    return isinstance(v, list) and all(isinstance(m, dict) and set(m) >= {"role", "content"} for m in v)


def _check_sft(row):
    if "messages" in row:
        return _is_messages(row["messages"])
    return _is_messages(row.get("prompt")) and _is_messages(row.get("completion"))


def _check_preference(row):
    return all(_is_messages(row.get(k)) for k in ("prompt", "chosen", "rejected"))


def _check_kto(row):
    return _is_messages(row.get("prompt")) and _is_messages(row.get("completion")) and isinstance(row.get("label"), bool)


class _Trainer:
    config = None
    check = None

    def __init__(self, model=None, args=None, train_dataset=None, eval_dataset=None, processing_class=None, **kwargs):
        if kwargs:
            raise TypeError("unexpected arguments: %s" % sorted(kwargs))
        if model is None:
            raise ValueError("model is required")
        if train_dataset is None:
            raise ValueError("`train_dataset` is required")
        if not isinstance(args, self.config):
            raise TypeError("args must be a %s" % self.config.__name__)
        for name, ds in (("train_dataset", train_dataset), ("eval_dataset", eval_dataset)):
            if ds is None:
                continue
            if not isinstance(ds, Dataset):
                raise TypeError("%s must be a Dataset, not %s" % (name, type(ds).__name__))
            if ds.num_rows == 0:
                raise ValueError("%s is empty" % name)
            for i, row in enumerate(ds.rows or []):
                if not type(self).check(row):
                    raise ValueError("%s row %d lacks the fields %s reads: %s" % (name, i, type(self).__name__, sorted(row)))
        if type(self).check is _check_kto and train_dataset.rows:
            sum(row["label"] for row in train_dataset.rows)  # kto_trainer.py: sum(train_dataset["label"])
        self.train_dataset, self.eval_dataset, self.args = train_dataset, eval_dataset, args

    def train(self):
        return None


class SFTTrainer(_Trainer):
    config = SFTConfig
    check = staticmethod(_check_sft)


class DPOTrainer(_Trainer):
    config = DPOConfig
    check = staticmethod(_check_preference)


class KTOTrainer(_Trainer):
    config = KTOConfig
    check = staticmethod(_check_kto)
