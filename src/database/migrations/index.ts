import { InitialSchema1763800000000 } from './1763800000000-initial-schema.js';

/** In order. Listed explicitly: globs do not survive bundlers or ESM loaders. */
export const MIGRATIONS = [InitialSchema1763800000000];
