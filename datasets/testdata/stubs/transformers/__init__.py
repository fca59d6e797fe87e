"""Stand-in for transformers: AutoTokenizer.from_pretrained."""


class _Tokenizer:
    def __init__(self, name):
        self.name_or_path = name


class AutoTokenizer:
    @staticmethod
    def from_pretrained(name, **kwargs):
        if not isinstance(name, str) or not name:
            raise ValueError("a model name or path is required")
        return _Tokenizer(name)
