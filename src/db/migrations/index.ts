import { Foundation1732579200000 } from './1732579200000-foundation';

/** Every migration, in order. Listed explicitly so bundlers and ts-node need no globbing. */
export const migrations = [Foundation1732579200000];
