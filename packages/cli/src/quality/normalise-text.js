"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.normaliseText = normaliseText;
/** Lowercase, punctuation and symbols removed, runs of whitespace collapsed to one space. */
function normaliseText(text) {
    return text
        .toLowerCase()
        .replace(/[\p{P}\p{S}]+/gu, '')
        .replace(/\s+/g, ' ')
        .trim();
}
//# sourceMappingURL=normalise-text.js.map