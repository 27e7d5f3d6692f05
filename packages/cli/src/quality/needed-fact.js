"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
//# sourceMappingURL=needed-fact.js.map