/**
 * The versions of extract's rules, apart from the rules themselves: the store's schema version
 * includes them, and reading it must not load the extract layer (a reading command's start-up).
 */

/**
 * Bumped whenever the rows derived from the same artifact bytes change (a field read anew, a
 * normalisation of what is compared). The store's version includes it, so a store derived under
 * other rules is re-derived from the archive instead of mixing rows of both.
 */
export const ROWS_VERSION = 4;

/** Bumped whenever the fingerprint recipe (node-fingerprint.ts) changes, since every fingerprint changes with it. */
export const FINGERPRINT_VERSION = 2;
