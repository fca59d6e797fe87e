// Package agent groups the code agent. It holds no code of its own:
//
//   - agent/llm: model providers, routing, budgets, retries and the logged client;
//   - agent/prompt: every prompt template and response parser (the single home
//     of prompt text, shared by inference and training-data rendering);
//   - agent/retrieval, agent/execute, agent/orchestrator, agent/ask: task
//     analysis and context retrieval, plan/implement and patching, the solve
//     loop, and CGRAG question answering.
//
// The agent mainly exists to produce training data: every model call and
// decision it makes is logged to the raw store.
package agent
