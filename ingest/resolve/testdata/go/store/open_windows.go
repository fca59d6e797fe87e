package store

func open() {}
