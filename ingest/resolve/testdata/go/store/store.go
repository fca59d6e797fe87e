package store

type Store struct {
	Base
	items map[string]int
}

func New() *Store { return &Store{} }

func (s *Store) Get(k string) int {
	s.load()
	s.Reset()
	other := New()
	other.load()
	helper()
	open()
	return s.items[k]
}

func (s Store) Len() int { return len(s.items) }
