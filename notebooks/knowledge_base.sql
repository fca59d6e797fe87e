-- Knowledge base overview: what `cra index` holds per repository.
-- Run with: cra sql -f notebooks/knowledge_base.sql

-- Files and symbols per repository and language.
SELECT r.path                    AS repo,
       f.language,
       count(DISTINCT f.id)      AS files,
       count(s.id)               AS symbols,
       sum(f.size_bytes)         AS bytes
FROM curated.repos r
JOIN curated.files f ON f.repo_id = r.id
LEFT JOIN curated.symbols s ON s.file_id = f.id
GROUP BY ALL
ORDER BY repo, files DESC;

-- The most imported files: the hubs retrieval expands through.
SELECT f.path, count(*) AS imported_by
FROM curated.dependencies d
JOIN curated.files f ON f.id = d.target_file_id
GROUP BY f.path
ORDER BY imported_by DESC
LIMIT 20;

-- What was not indexed, and why (binary, too_large, vendored, gitignored...).
SELECT r.path AS repo, s.reason, count(*) AS paths, sum(s.size_bytes) AS bytes
FROM curated.skipped_files s
JOIN curated.repos r ON r.id = s.repo_id
GROUP BY ALL
ORDER BY repo, paths DESC;

-- Files that change together most often (co-change neighbours).
SELECT a.path AS file_a, b.path AS file_b, c.count
FROM curated.co_changes c
JOIN curated.files a ON a.id = c.file_a_id
JOIN curated.files b ON b.id = c.file_b_id
ORDER BY c.count DESC
LIMIT 20;

-- The CGRAG code index: the functions that raise or log the most errors.
SELECT file_path, qualified_name, raises, error_strings, len(called_by) AS callers
FROM curated.code_index
WHERE len(raises) > 0 OR len(error_strings) > 0
ORDER BY len(raises) + len(error_strings) DESC, callers DESC
LIMIT 20;
