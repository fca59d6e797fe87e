package store

import "testing"

func TestGet(t *testing.T) {
	helper()
	testHelper()
	New().Get("x")
}

func testHelper() {}
