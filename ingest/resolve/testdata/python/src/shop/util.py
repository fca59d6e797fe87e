import os
import requests
from . import util


def slug(x):
    return os.path.basename(str(x))


def helper():
    return slug(1)
