module example.com/lib/v2
