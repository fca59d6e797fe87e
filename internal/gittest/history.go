package gittest

import "testing"

// PythonHistory is a small Python project (a store, an API handler, key
// helpers) with seven commits, six of which bootstrap mines into synthetic
// tasks with all four stages: one or two files each, messages that pass the
// commit filter.
func PythonHistory(t testing.TB) *Repo {
	r := New(t)
	r.Write("app/store.py", "class Store:\n    def get(self, key):\n        return key\n\n    def put(self, key, value):\n        return value\n")
	r.Write("app/api.py", "from app.store import Store\n\n\ndef handler(key):\n    return Store().get(key)\n")
	r.Write("app/util.py", "def clean(key):\n    return key\n")
	r.Commit("Create the store, the API handler and the key helpers")
	for _, s := range []struct{ file, content, msg string }{
		{"app/store.py", "class Store:\n    def get(self, key, default=None):\n        return key or default\n\n    def put(self, key, value):\n        return value\n", "Let Store.get fall back to a default value"},
		{"app/api.py", "from app.store import Store\n\n\ndef handler(key):\n    return Store().get(key, 'none')\n", "Return none from handler when Store.get finds nothing"},
		{"app/util.py", "def clean(key):\n    return key.strip()\n", "Strip whitespace around keys in clean"},
		{"app/store.py", "class Store:\n    def get(self, key, default=None):\n        return key or default\n\n    def put(self, key, value):\n        return (key, value)\n", "Make Store.put return the stored pair"},
		{"app/util.py", "def clean(key):\n    return key.strip().lower()\n", "Lower the case of keys in clean as well"},
		{"app/api.py", "from app.store import Store\n\n\ndef handler(key):\n    return Store().get(key.strip(), 'none')\n", "Strip the key the handler passes to Store.get"},
	} {
		r.Write(s.file, s.content)
		r.Commit(s.msg)
	}
	return r
}
