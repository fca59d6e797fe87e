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
