// `npm run fuzz:install`: installs (or confirms) schemathesis in .venv, for `npm run fuzz`.
import { ensureSchemathesis, log } from './lib.mjs';

log(`schemathesis: ${ensureSchemathesis()}`);
