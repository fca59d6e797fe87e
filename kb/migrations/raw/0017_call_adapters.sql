-- Which LoRA adapter answered a call (the stage's champion when it was
-- called): the registry's name and version and the sha256 of its weights,
-- so evidence and training data can be told apart by adapter. All three
-- are NULL when the base model answered.
ALTER TABLE retrieval_llm_calls ADD COLUMN adapter VARCHAR;
ALTER TABLE retrieval_llm_calls ADD COLUMN adapter_version INTEGER;
ALTER TABLE retrieval_llm_calls ADD COLUMN adapter_sha256 VARCHAR;

-- The view gains the adapter. OpenTelemetry's GenAI conventions have no
-- attribute for it, and custom attributes stay out of the gen_ai
-- namespace they own, so the columns are cra's own, as "cra.stage" is.
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
    adapter                                           AS "cra.adapter.name",
    adapter_version                                   AS "cra.adapter.version",
    adapter_sha256                                    AS "cra.adapter.sha256",
    latency_ms / 1000.0                               AS "duration",
    error                                             AS "error.type",
    timestamp                                         AS "start_time"
FROM retrieval_llm_calls
WHERE call_type NOT IN ('assembly', 'refinement_merge');
