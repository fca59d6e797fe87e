import helpers
import nspkg.sub.mod
from vendored import tool, VERSION
from vendored.tool import tool as t2


def main():
    helpers.assist()
    nspkg.sub.mod.work()
    tool.tool()
    t2()
