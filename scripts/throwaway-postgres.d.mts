export declare const POSTGRES_BIN: string;

export declare class PostgresSetupError extends Error {
	override readonly name: "PostgresSetupError";
}

export declare function missingPostgres(): string;
export declare function hasPostgres(): boolean;

export interface ThrowawayPostgres {
	/** The admin URL: `postgres://postgres@127.0.0.1:<port>/postgres`. */
	url: string;
	/** Stops it (pg_ctl's `mode`, default fast) and removes its folder. */
	stop(mode?: "smart" | "fast" | "immediate"): void;
}

export declare function startThrowawayPostgres(options?: {
	/** `name=value` settings, each a `-c` option. */
	settings?: readonly string[];
	/** The temp folder's name prefix. */
	prefix?: string;
}): Promise<ThrowawayPostgres>;
