//go:build unix

package store

func open() {}
