"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.neededFacts = neededFacts;
const annotated_qa_facts_1 = require("./annotated-qa-facts");
const gold_action_facts_1 = require("./gold-action-facts");
const tool_call_facts_1 = require("./tool-call-facts");
/**
 * The facts of a recorded conversation, each with the moment it is needed. `lastCompose` is the
 * end of the last payload the replay composes (facts about the whole conversation are asked there).
 *
 * - tau-bench gold-action arguments: before the agent's first call of that function;
 * - annotated question/answer pairs (LoCoMo): after the whole conversation, normalised match;
 * - coding-agent runs (OpenHands, no annotated facts): derived from the tool calls (see {@link toolCallFacts});
 * - any other fact with an answer and evidence: at the last compose after its evidence.
 */
function neededFacts(record, lastCompose) {
    const facts = record.facts ?? [];
    if (facts.length === 0)
        return isCodingRun(record) ? (0, tool_call_facts_1.toolCallFacts)(record) : [];
    const result = [...(0, gold_action_facts_1.goldActionFacts)(record), ...(0, annotated_qa_facts_1.annotatedQaFacts)(record, lastCompose)];
    for (const fact of facts) {
        if (fact.origin === gold_action_facts_1.GOLD_ACTION_ORIGIN || fact.origin === annotated_qa_facts_1.ANNOTATED_QA_ORIGIN)
            continue;
        if (typeof fact.answer !== 'string' || fact.answer.length === 0)
            continue;
        const evidence = fact.evidence_message_indexes ?? [];
        if (evidence.length === 0 || Math.max(...evidence) >= lastCompose)
            continue;
        result.push({ question: fact.question, answer: fact.answer, neededAt: lastCompose, match: 'verbatim', evidence });
    }
    return result;
}
/** A recorded coding-agent run (OpenHands): facts are derived from its tool calls. */
function isCodingRun(record) {
    return record.id.startsWith('openhands/') || (record.source ?? '').startsWith('OpenHands/');
}
//# sourceMappingURL=needed-facts.js.map