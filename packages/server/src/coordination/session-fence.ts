import type { Expression, SqlBool } from "kysely";

/**
 * What a write a Task makes for its Session on its way (a confirmation asked or interrupted, the
 * Session's row) is conditional on: `lost` when this process knows it no longer holds the
 * Session — nothing more is written for it here; else `condition` goes into the statement (true
 * only while the claim stands; undefined: none, alone on the store).
 */
export type SessionFence =
	| { readonly lost: true }
	| { readonly lost: false; readonly condition: Expression<SqlBool> | undefined };

/** No condition: the process is its store's only writer. */
export const UNFENCED: SessionFence = { lost: false, condition: undefined };
