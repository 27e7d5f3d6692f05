/**
 * A checkable fact together with the moment it is needed: the payload composed with
 * `history = messages.slice(1, neededAt)` must hold `answer` for the model to act on it.
 */
export interface NeededFact {
    question: string;
    answer: string;
    /** Index into `messages` where the model is called and needs the fact (the compose point's end). */
    neededAt: number;
    /** `verbatim`: the answer occurs as is; `normalised`: both sides lowercased, punctuation and extra spaces removed. */
    match: 'verbatim' | 'normalised';
    /** Indexes into `messages` of the messages that brought the answer into the conversation. */
    evidence: number[];
}
//# sourceMappingURL=needed-fact.d.ts.map