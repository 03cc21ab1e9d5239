import { type Compilable, CompiledQuery } from "kysely";

/** Stands for a value in a template's one build; each is a string no value of the store can be. */
const slotMark = (name: string) => `\u0000omniloop-slot:${name}`;

/**
 * A query Kysely builds and compiles once, then runs with other values: building a query costs
 * Kysely more CPU than SQLite spends running a one-row statement, and the hot ones (a Session
 * made, a Task started) have the same shape every time (bench/server/start-cost.mjs). The build
 * puts `slot(name)` where a value goes; `bind` swaps each slot's parameter for that value.
 * A value that changes the SQL (null in `is`, a list) must be part of the build, not a slot.
 */
export class QueryTemplate<V extends object> {
	private compiled: CompiledQuery | undefined;
	/** For each parameter of the compiled query, the value it takes, or undefined for a constant. */
	private slots: (keyof V | undefined)[] = [];

	constructor(private readonly build: (slot: <K extends keyof V & string>(name: K) => V[K]) => Compilable) {}

	bind(values: V): CompiledQuery {
		const compiled = this.compiled ?? this.compile();
		return CompiledQuery.raw(
			compiled.sql,
			compiled.parameters.map((constant, i) => {
				const slot = this.slots[i];
				return slot === undefined ? constant : values[slot];
			}),
		);
	}

	private compile(): CompiledQuery {
		const names = new Map<unknown, keyof V>();
		const compiled = this.build((name) => {
			const mark = slotMark(name);
			names.set(mark, name);
			return mark as V[typeof name];
		}).compile();
		this.slots = compiled.parameters.map((parameter) => names.get(parameter));
		this.compiled = compiled;
		return compiled;
	}
}
