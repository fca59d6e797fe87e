-- What a thinking model (Qwen3-class) wrote before its answer, apart from
-- the answer: logged for inspection, never parsed, never trained on.
ALTER TABLE retrieval_llm_calls ADD COLUMN thinking VARCHAR;

-- The model calls under OpenTelemetry's GenAI semantic-convention names,
-- so trace tools and users' queries need no glossary ("assembly" rows,
-- which record what context was cut and call no model, are left out).
CREATE VIEW gen_ai_calls AS
SELECT
    id                                                AS "call.id",
    'chat'                                            AS "gen_ai.operation.name",
    coalesce(provider, 'ollama')                      AS "gen_ai.provider.name",
    model                                             AS "gen_ai.request.model",
    model                                             AS "gen_ai.response.model",
    prompt_tokens                                     AS "gen_ai.usage.input_tokens",
    completion_tokens                                 AS "gen_ai.usage.output_tokens",
    CASE WHEN error IS NULL THEN ['stop'] ELSE ['error'] END AS "gen_ai.response.finish_reasons",
    task_id                                           AS "gen_ai.conversation.id",
    call_type                                         AS "cra.call_type",
    stage_name                                        AS "cra.stage",
    latency_ms / 1000.0                               AS "duration",
    error                                             AS "error.type",
    timestamp                                         AS "start_time"
FROM retrieval_llm_calls
WHERE call_type <> 'assembly';
