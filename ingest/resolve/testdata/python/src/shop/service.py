import shop.util
import shop.util as u
import numpy as np
from shop import Order
from shop import models
from . import util
from .util import helper
from .util import slug as s
from .typed import Money
from .. import nothing
from ....toohigh import x


def helper():
    return 1


def outer():
    def helper():
        return 2

    return helper()


class Service:
    def run(self) -> Order:
        o = Order()
        models.Order.make()
        shop.util.slug(o)
        u.helper()
        util.slug(o)
        s(o)
        helper()
        np.array([])
        self.stop()
        return o

    def stop(self):
        def inner():
            return inner()

        return inner()


class Special(Order):
    def go(self, m: Money):
        self.save()
        super().tax()
        self.missing()


run()
