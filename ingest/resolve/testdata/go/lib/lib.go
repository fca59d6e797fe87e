package lib

func Do() {}
