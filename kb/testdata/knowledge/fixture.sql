-- The KnowledgeBase test fixture: two repositories. Explicit ids so tests
-- can name rows; comments say what each group exercises.

INSERT INTO repos (id, path, remote_url, indexed_at, tree_rev, head_commit, is_git, derived_stale) VALUES
    (1, '/src/alpha', NULL, '2025-01-01 00:00:00+00', 'worktree', 'ccc3', true, false),
    (2, '/src/beta', 'https://example.com/beta.git', '2025-01-02 00:00:00+00', NULL, NULL, false, true);

-- repo 1: several languages; pkg/e.py is isolated (no symbols, edges, history).
-- repo 2 reuses the path pkg/a.py.
INSERT INTO files (id, repo_id, path, language, content_hash, size_bytes, error_nodes) VALUES
    (1, 1, 'pkg/a.py', 'python', 'h1', 100, 0),
    (2, 1, 'pkg/b.py', 'python', 'h2', 200, 0),
    (3, 1, 'pkg/c.py', 'python', 'h3', 300, 0),
    (4, 1, 'pkg/d.py', 'python', 'h4', 400, 0),
    (5, 1, 'web/app.ts', 'typescript', 'h5', 500, 0),
    (6, 1, 'cmd/main.go', 'go', 'h6', 600, 2),
    (7, 1, 'pkg/e.py', 'python', 'h7', 700, NULL),
    (10, 2, 'pkg/a.py', 'python', 'h10', 10, 0),
    (11, 2, 'lib/x.go', 'go', 'h11', 11, 0);

INSERT INTO symbols (id, file_id, name, kind, start_line, end_line, signature, parent_symbol_id, receiver, raises, error_strings, mutates) VALUES
    (100, 1, 'Cache', 'class', 1, 30, 'class Cache:', NULL, NULL, NULL, NULL, NULL),
    (102, 1, 'set', 'method', 12, 20, 'def set(self, key, value):', 100, NULL, [], [], ['self._data']),
    (101, 1, 'get', 'method', 5, 10, 'def get(self, key):', 100, NULL, ['KeyError'], ['cache miss for key'], []),
    (103, 1, 'helper', 'function', 32, 40, 'def helper(x):', NULL, NULL, ['ValueError'], ['Invalid Input: %s'], []),
    (110, 2, 'load', 'function', 1, 10, 'def load(path):', NULL, NULL, ['ValueError', 'IOError'], ['cannot load'], ['_registry']),
    (111, 2, 'BaseLoader', 'class', 12, 20, 'class BaseLoader:', NULL, NULL, NULL, NULL, NULL),
    (112, 2, 'FileLoader', 'class', 22, 40, 'class FileLoader(BaseLoader):', NULL, NULL, NULL, NULL, NULL),
    (113, 2, 'load', 'method', 25, 30, 'def load(self):', 112, NULL, NULL, NULL, NULL),
    (120, 3, 'loader_factory', 'function', 1, 5, 'def loader_factory():', NULL, NULL, NULL, NULL, NULL),
    (121, 3, 'LOADERS', 'variable', 7, 7, NULL, NULL, NULL, NULL, NULL, NULL),
    (130, 5, 'loadApp', 'function', 1, 10, 'function loadApp()', NULL, NULL, NULL, NULL, NULL),
    (131, 5, 'AppConfig', 'interface', 12, 20, 'interface AppConfig', NULL, NULL, NULL, NULL, NULL),
    (140, 6, 'main', 'function', 1, 10, 'func main()', NULL, NULL, NULL, NULL, NULL),
    (141, 6, 'Load', 'method', 12, 20, 'func (s *Server) Load() error', NULL, 'Server', NULL, ['server not ready'], ['s.state']),
    (150, 10, 'load', 'function', 1, 5, 'def load():', NULL, NULL, ['ValueError'], NULL, NULL),
    (151, 11, 'Load', 'function', 1, 5, 'func Load()', NULL, NULL, NULL, NULL, NULL);

-- A small call graph around load (110); 113 -> 110 twice (two call sites).
INSERT INTO symbol_references (caller_symbol_id, callee_symbol_id, reference_kind) VALUES
    (103, 110, 'call'),
    (110, 120, 'call'),
    (110, 111, 'type_ref'),
    (112, 111, 'inherit'),
    (113, 110, 'call'),
    (113, 110, 'call'),
    (140, 141, 'call'),
    (150, 151, 'call');

-- a -> b -> c, d -> b twice (import and type_ref); repo 2: 10 -> 11.
-- b -> c is stored twice: a duplicate must not repeat the edge.
INSERT INTO dependencies (source_file_id, target_file_id, kind) VALUES
    (1, 2, 'import'),
    (2, 3, 'import'),
    (2, 3, 'import'),
    (4, 2, 'import'),
    (4, 2, 'type_ref'),
    (10, 11, 'import');

-- Each pair once, smaller id first; file 2 and 4 appear on both sides.
INSERT INTO co_changes (file_a_id, file_b_id, count, last_commit_hash) VALUES
    (1, 2, 5, 'ccc3'),
    (1, 3, 2, 'bbb2'),
    (1, 4, 1, NULL),
    (2, 4, 3, 'ddd4'),
    (3, 4, 3, 'ddd4'),
    (4, 5, 2, 'aaa1');

-- 3 and 4 share a timestamp: ties go by hash.
INSERT INTO commits (id, repo_id, hash, author, message, timestamp, files_changed, insertions, deletions, parents, is_merge) VALUES
    (1, 1, 'aaa1', 'ann', 'first', '2024-01-01 00:00:00+00', 3, 10, 0, [], false),
    (2, 1, 'bbb2', 'bob', 'second', '2024-02-01 00:00:00+00', 2, 5, 1, ['aaa1'], false),
    (3, 1, 'ccc3', 'ann', 'third', '2024-03-01 00:00:00+00', 1, 1, 1, ['bbb2'], false),
    (4, 1, 'ddd4', NULL, NULL, '2024-03-01 00:00:00+00', NULL, NULL, NULL, NULL, NULL),
    (5, 2, 'eee5', 'eve', 'beta', '2024-01-05 00:00:00+00', 1, 1, 0, [], false);

-- (1, 2) twice: a duplicate must not repeat the commit.
INSERT INTO file_commits (file_id, commit_id) VALUES
    (1, 1), (1, 2), (1, 2), (1, 3), (1, 4), (2, 3), (10, 5);

-- Inserted out of order: the module docstring comes first, then by line.
INSERT INTO docstrings (id, symbol_id, file_id, content, format, parsed_fields) VALUES
    (1, 101, 1, 'Get a value.', 'google', {
        'summary': 'Get a value.',
        'params': [{'name': 'key', 'type': 'str', 'description': 'the key'}],
        'returns': {'type': 'Any', 'description': 'the value'},
        'raises': [{'type': 'KeyError', 'description': 'when missing'}]}),
    (2, NULL, 1, 'Cache utilities.', 'plain', NULL),
    (3, 100, 1, 'A cache.', NULL, NULL);

INSERT INTO inline_comments (id, file_id, symbol_id, line, content, kind, is_rationale) VALUES
    (1, 1, 102, 15, 'copy to avoid aliasing the caller''s dict', 'rationale', true),
    (2, 1, 100, 3, 'TODO: evict', 'todo', false),
    (3, 1, 101, 8, 'the caller holds the lock', NULL, true);

INSERT INTO file_metadata (file_id, purpose, module, domain, concepts, public_api_surface, complexity_notes) VALUES
    (1, 'caching', 'pkg', 'caching', ['cache', 'eviction', 'Locking'], ['Cache'], NULL),
    (2, 'loading', 'pkg', 'loading', ['plugins', 'cache'], NULL, NULL),
    (3, NULL, 'pkg', 'Loading', ['factory'], [], 'simple'),
    (5, 'ui', 'web', 'web', ['ui', 'cache', 'eviction'], [], NULL),
    (10, NULL, NULL, 'caching', ['cache'], [], NULL);

-- scope: v3 is inactive, so v2 is the one; precision has only an inactive one.
INSERT INTO adapter_metadata (id, stage_name, base_model, model_tag, version, active, performance_notes, deployed_at) VALUES
    (1, 'scope', 'coding', 'qwen3:4b-scope-v1', 1, true, NULL, '2024-01-01 00:00:00+00'),
    (2, 'scope', 'coding', 'qwen3:4b-scope-v2', 2, true, 'recall 0.9', '2024-02-01 00:00:00+00'),
    (3, 'scope', 'coding', 'qwen3:4b-scope-v3', 3, false, NULL, '2024-03-01 00:00:00+00'),
    (4, 'precision', 'reasoning', 'qwen3:8b-precision-v1', 1, false, NULL, '2024-01-01 00:00:00+00');
