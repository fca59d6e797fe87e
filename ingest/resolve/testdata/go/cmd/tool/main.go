package main

import "example.com/tools/gen"

func main() { gen.Run() }
