-- A scope decision's rank within its expansion tier (1 = first proposed);
-- files a tier proposed past its cap keep the rank they would have had.
ALTER TABLE retrieval_decisions ADD COLUMN rank INTEGER;

-- Rows that call no model are no GenAI calls: "assembly" (what context was
-- cut to fit) and "refinement_merge" (what a refinement request added).
CREATE OR REPLACE VIEW gen_ai_calls AS
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
WHERE call_type NOT IN ('assembly', 'refinement_merge');
