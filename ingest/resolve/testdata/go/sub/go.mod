module example.com/shop/sub
