package store

type Base struct{}

func (b *Base) Reset() {}
