package resolve

import "testing"

// The testdata folders are small projects extracted with the real
// extractors; each test asserts the exact edge sets.

func TestPythonProject(t *testing.T) {
	r := loadDir(t, "testdata/python")
	eqLines(t, "dependencies", dependencies(t, r), []string{
		"scripts/run.py -> lib/vendored/__init__.py", // from vendored import VERSION: lib is a root
		"scripts/run.py -> lib/vendored/tool.py",     // ... and tool, a submodule
		"scripts/run.py -> nspkg/sub/mod.py",         // namespace packages, no __init__.py
		"scripts/run.py -> scripts/helpers.py",       // a script's own directory
		"src/shop/__init__.py -> src/shop/models.py",
		"src/shop/models.py -> src/shop/util.py",
		// util.py's `from . import util` is a self-import; os and requests
		// are not in the repository.
		"src/shop/service.py -> src/shop/__init__.py", // from shop import Order: src/ layout
		"src/shop/service.py -> src/shop/models.py",   // from shop import models
		"src/shop/service.py -> src/shop/typed.pyi",   // a stub
		"src/shop/service.py -> src/shop/util.py",
		// numpy, `from .. import nothing` and a relative import above the
		// root give nothing.
	})
	eqLines(t, "references", references(t, r), []string{
		"scripts/run.py:main -call-> lib/vendored/tool.py:tool",      // tool.tool() and t2()
		"scripts/run.py:main -call-> nspkg/sub/mod.py:work",          // import nspkg.sub.mod
		"scripts/run.py:main -call-> scripts/helpers.py:assist",      // import helpers
		"src/shop/models.py:Base.save -call-> src/shop/util.py:slug", // from .util import slug
		"src/shop/models.py:Order -inherit-> src/shop/models.py:Base",
		"src/shop/models.py:Order.total -call-> src/shop/models.py:Base.save", // self.save, inherited
		"src/shop/models.py:Order.total -call-> src/shop/models.py:Order.tax",
		"src/shop/models.py:Order.make -call-> src/shop/models.py:Order.tax",    // cls.tax; @classmethod is no edge
		"src/shop/service.py:outer -call-> src/shop/service.py:outer.helper",    // nested def shadows module-level
		"src/shop/service.py:Service.run -call-> src/shop/models.py:Order",      // re-exported by shop/__init__.py
		"src/shop/service.py:Service.run -type_ref-> src/shop/models.py:Order",  // -> Order
		"src/shop/service.py:Service.run -call-> src/shop/models.py:Order.make", // models.Order.make
		"src/shop/service.py:Service.run -call-> src/shop/service.py:helper",    // local def shadows the import
		"src/shop/service.py:Service.run -call-> src/shop/service.py:Service.stop",
		"src/shop/service.py:Service.run -call-> src/shop/util.py:slug",   // shop.util.slug, util.slug, s
		"src/shop/service.py:Service.run -call-> src/shop/util.py:helper", // u.helper
		"src/shop/service.py:Service.stop -call-> src/shop/service.py:Service.stop.inner",
		"src/shop/service.py:Service.stop.inner -call-> src/shop/service.py:Service.stop.inner", // recursion
		"src/shop/service.py:Special -inherit-> src/shop/models.py:Order",
		"src/shop/service.py:Special.go -call-> src/shop/models.py:Base.save", // two levels up
		"src/shop/service.py:Special.go -call-> src/shop/models.py:Order.tax", // super().tax
		"src/shop/service.py:Special.go -type_ref-> src/shop/typed.pyi:Money",
		"src/shop/util.py:helper -call-> src/shop/util.py:slug",
		// Module-level run() and self.missing() give nothing.
	})
}

func TestJavaScriptProject(t *testing.T) {
	r := loadDir(t, "testdata/js")
	eqLines(t, "dependencies", dependencies(t, r), []string{
		"lib/entry.js -> lib/legacy.js", // './legacy.js' as written
		"src/app.ts -> lib/legacy.js",   // require('../lib/legacy'), twice
		"src/app.ts -> src/defaulty.ts",
		"src/app.ts -> src/index.ts",        // '.'
		"src/app.ts -> src/shapes/index.ts", // './shapes'
		"src/app.ts -> src/styles.css",      // a side-effect import of a non-code file
		"src/app.ts -> src/util.ts",         // './util.js' is the TypeScript source
		"src/index.ts -> src/shapes/index.ts",
		"src/index.ts -> src/util.ts",
		"src/view.tsx -> src/app.ts",
		// react and the missing './lazy' give nothing; self.ts imports itself.
	})
	eqLines(t, "references", references(t, r), []string{
		"lib/entry.js:go -call-> lib/legacy.js:run",                      // exports.run = function
		"src/app.ts:App -inherit-> src/shapes/index.ts:Shape",            // shapes.Shape, namespace import
		"src/app.ts:App.start -call-> lib/legacy.js:run",                 // legacy.run() and destructured run()
		"src/app.ts:App.start -call-> src/app.ts:App.stop",               // this.stop
		"src/app.ts:App.start -call-> src/app.ts:local",                  // same file
		"src/app.ts:App.start -call-> src/shapes/index.ts:Shape.area",    // this.area, inherited
		"src/app.ts:App.start -call-> src/util.ts:helper",                // {helper as h}
		"src/app.ts:App.start -call-> src/util.ts:other",                 // other, and alias re-exported by index.ts
		"src/app.ts:Circle -inherit-> src/shapes/index.ts:Shape",         // through index.ts's export *
		"src/app.ts:Circle.area -call-> src/shapes/index.ts:Shape.area",  // super.area
		"src/app.ts:Circle.area -call-> src/shapes/index.ts:Shape.scale", // this.scale, inherited
		"src/shapes/index.ts:Shape.area -call-> src/shapes/index.ts:Shape.scale",
		"src/util.ts:helper -call-> src/util.ts:other",
		"src/view.tsx:View -call-> src/app.ts:App", // <App />
		// main() is a default import; React.createElement and module-level
		// local() give nothing.
	})
}

func TestGoProject(t *testing.T) {
	r := loadDir(t, "testdata/go")
	eqLines(t, "dependencies", dependencies(t, r), []string{
		"api/api.go -> lib/lib.go", // example.com/lib/v2, a nested module
		"api/api.go -> store/base.go",
		"api/api.go -> store/load.go",
		"api/api.go -> store/open_unix.go",
		"api/api.go -> store/open_windows.go",
		"api/api.go -> store/store.go", // not store_test.go
		"api/api.go -> sub/x/x.go",     // example.com/shop/sub is the longer module path
		"api/dot.go -> sub/x/x.go",
		"cmd/tool/main.go -> tools/gen/gen.go", // example.com/tools
		// example.com/shop/tools/gen is inside the nested module
		// example.com/tools, so it is not part of example.com/shop; fmt,
		// testing and github.com/other/mod are not in the repository.
	})
	eqLines(t, "references", references(t, r), []string{
		"api/api.go:Handle -call-> lib/lib.go:Do",            // default name without /v2
		"api/api.go:Handle -call-> store/store.go:New",       // store.New and st.New (alias)
		"api/api.go:Handle -call-> store/store.go:Store.Len", // method expression store.Store.Len
		"api/api.go:Handle -call-> sub/x/x.go:X",
		"api/dot.go:UseDot -call-> sub/x/x.go:X", // dot import
		"cmd/tool/main.go:main -call-> tools/gen/gen.go:Run",
		"store/store.go:Store -inherit-> store/base.go:Base",
		"store/store.go:New -type_ref-> store/store.go:Store",
		"store/store.go:Store.Get -call-> store/base.go:Base.Reset",   // promoted from the embedded Base
		"store/store.go:Store.Get -call-> store/load.go:Store.load",   // s.load, declared in another file
		"store/store.go:Store.Get -call-> store/load.go:helper",       // same package, another file
		"store/store.go:Store.Get -call-> store/open_unix.go:open",    // both build variants
		"store/store.go:Store.Get -call-> store/open_windows.go:open", //
		"store/store.go:Store.Get -call-> store/store.go:New",
		"store/store_test.go:TestGet -call-> store/load.go:helper",
		"store/store_test.go:TestGet -call-> store/store.go:New",
		"store/store_test.go:TestGet -call-> store/store_test.go:testHelper",
		// other.load() is not on the receiver; useTest cannot see
		// testHelper (a _test.go declaration); gen.Run in api.go is the
		// nested module's, which api.go does not import.
	})
}
