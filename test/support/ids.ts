/** 24 hex characters: a valid `_id` that names no document in any fixture. */
export const MISSING_ID = '0123456789abcdef01234567';
