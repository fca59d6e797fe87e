package store

func (s *Store) load() {}

func helper() {}

func useTest() { testHelper() }
