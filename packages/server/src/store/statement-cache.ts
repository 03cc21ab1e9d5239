import type { SqliteDatabase, SqliteStatement } from "kysely";

/** More distinct statements than the store has: a query whose text varies (an IN list) cannot grow it without end. */
const MOST_STATEMENTS = 256;

/**
 * The SQLite database as Kysely sees it, with each statement prepared once: Kysely's SQLite
 * driver prepares every query it runs, and preparing costs more than running one of the store's
 * one-row statements (bench/server/start-cost.mjs). A statement is reusable because the driver
 * runs it to the end at once (`all`/`run`); the store never streams a query, which would hold it.
 */
export function withStatementCache(database: SqliteDatabase): SqliteDatabase {
	const statements = new Map<string, SqliteStatement>();
	return {
		close: () => {
			statements.clear();
			return database.close();
		},
		prepare: (sql) => {
			let statement = statements.get(sql);
			if (statement === undefined) {
				statement = database.prepare(sql);
				if (statements.size >= MOST_STATEMENTS) statements.clear();
				statements.set(sql, statement);
			}
			return statement;
		},
	};
}
