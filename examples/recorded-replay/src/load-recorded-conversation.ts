import { type BundledConversationName, type ConversationRecord, loadConversations } from '@ctxkit/core/testing';

/**
 * The bundled conversation `recordId` of the set `conversation` (`tau-bench-airline`,
 * `openhands-multi-swe-bench` …).
 * @throws RangeError when the set holds no record of that id (the message names the set to look in)
 */
export function loadRecordedConversation(conversation: BundledConversationName, recordId: string): ConversationRecord {
  const record = loadConversations(conversation).find((candidate) => candidate.id === recordId);
  if (!record)
    throw new RangeError(
      `No record "${recordId}" in the bundled ${conversation} conversations: pick an id from ` +
        `loadConversations('${conversation}').`,
    );
  return record;
}
