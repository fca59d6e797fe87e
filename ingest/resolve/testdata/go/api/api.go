package api

import (
	"fmt"

	"example.com/lib/v2"
	"example.com/shop/store"
	st "example.com/shop/store"
	"example.com/shop/sub/x"
	"example.com/shop/tools/gen"
	"github.com/other/mod"
)

func Handle() {
	store.New()
	st.New()
	fmt.Println()
	gen.Run()
	lib.Do()
	mod.X()
	x.X()
	store.Store.Len(store.Store{})
}
