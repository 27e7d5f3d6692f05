#!/usr/bin/env node
// The `ctxkit` command. The command itself is compiled to dist/ by the build; this launcher is part
// of the package source, so npm links the bin at install time, before a fresh clone is built.
'use strict';
const path = require('node:path');
const fs = require('node:fs');

const compiled = path.join(__dirname, '..', 'dist', 'bin', 'ctxkit.js');
if (!fs.existsSync(compiled)) {
  process.stderr.write(
    'ctxkit is not built yet: run `npm run build` (in this repository, `npm install` builds it), then try again.\n',
  );
  process.exitCode = 1;
} else {
  require(compiled);
}
