"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.readPayloadFacts = readPayloadFacts;
const payload_text_1 = require("../lab/payload-text");
const normalise_text_1 = require("./normalise-text");
/** Reads a payload for fact checks; the normalised text is built only when a normalised fact asks. */
function readPayloadFacts(messages) {
    const text = (0, payload_text_1.payloadText)(messages);
    let normalised;
    return {
        holds(fact) {
            if (fact.match === 'verbatim')
                return text.includes(fact.answer);
            normalised ??= ` ${(0, normalise_text_1.normaliseText)(text)} `;
            const answer = (0, normalise_text_1.normaliseText)(fact.answer);
            return answer.length > 0 && normalised.includes(answer);
        },
    };
}
//# sourceMappingURL=fact-presence.js.map