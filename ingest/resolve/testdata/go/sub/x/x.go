package x

func X() {}
