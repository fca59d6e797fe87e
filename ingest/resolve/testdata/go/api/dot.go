package api

import . "example.com/shop/sub/x"

func UseDot() { X() }
