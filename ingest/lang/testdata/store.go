// Package store keeps items.
//
// It is safe for one writer.
package store

import (
	"errors"
	"fmt"
	xerr "github.com/pkg/errors"
	"log/slog"

	_ "embed"
)

import "os"

// ErrNotFound is returned when a key is missing.
var ErrNotFound = errors.New("not found")

var (
	hits   int
	cache  = map[string]*Item{}
	errBad = xerr.New("bad item")
)

const (
	// Small is small.
	Small Size = iota
	Large
)

// Store holds items.
type Store[K comparable] struct {
	sync.Mutex
	*Base
	items map[K]*Item
	log   *slog.Logger
}

// Getter gets.
type Getter interface {
	fmt.Stringer
	// Get returns the item for k.
	Get(k string) (*Item, error)
}

type (
	Size  int
	Alias = map[string]Item
)

// Get returns the item.
//
//go:noinline
func (s *Store[K]) Get(k K, opt opts.Option) (*Item, error) {
	hits++ // we need the count for metrics
	s.Lock()
	defer s.Unlock()
	it, ok := s.items[k]
	if !ok {
		s.log.Error("missing item", "key", k)
		return nil, ErrNotFound
	}
	if it.broken {
		return nil, fmt.Errorf("item %v: %w", k, errBad)
	}
	return it, nil
}

// Put stores it.
func (s *Store[K]) Put(k K, it *Item) error {
	// TODO: validate k
	if it == nil {
		panic("nil item")
	}
	s.items[k] = it
	s.count++
	cache[fmt.Sprint(k)] = it
	go func() {
		err := os.Remove("x")
		if err != nil {
			slog.Error("remove failed", "err", err)
		}
	}()
	return nil
}

func load(path string) (err error) {
	var errLocal = errors.New("local")
	hits := 0
	hits++
	if path == "" {
		return errLocal
	}
	for _, c := range path {
		if c == '/' {
			return &PathError{Op: "load"}
		}
	}
	return os.ErrNotExist
}
