#!/usr/bin/env node
// The admin CLI as a command (package.json `bin`): `npx storefront tenant list --json` prints
// the command's output alone, with no npm banner. Builds first when sources changed (output
// on stderr), as `npm run cli` does; a production image runs its dist/ as it is.
import './ensure-built.mjs';

await import('../dist/src/cli.js');
