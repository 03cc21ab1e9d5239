import type { z } from "zod";
import type { RouteName, Routes } from "./wire/routes.js";

/** The types of a route's request and answer, read off the route table (wire/routes.ts). */

type PathOf<R extends string> = R extends `${string} ${infer Path}` ? Path : never;
type ParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
	? Name | ParamNames<`/${Rest}`>
	: P extends `${string}:${infer Name}`
		? Name
		: never;

type ParamsPart<R extends RouteName> = [ParamNames<PathOf<R>>] extends [never]
	? { params?: undefined }
	: { params: Record<ParamNames<PathOf<R>>, string> };
type BodyPart<R extends RouteName> = Routes[R] extends { body: infer B extends z.ZodType }
	? { body: z.input<B> }
	: { body?: undefined };
type QueryPart<R extends RouteName> = Routes[R] extends { query: infer Q extends z.ZodType }
	? { query?: z.input<Q> }
	: { query?: undefined };

/** What a call of route `R` sends: its path parameters, body and query, and any headers. */
export type RouteInput<R extends RouteName> = ParamsPart<R> &
	BodyPart<R> &
	QueryPart<R> & { headers?: Record<string, string>; signal?: AbortSignal };

/** The input as an argument: optional for a route that needs none. */
export type InputArgs<R extends RouteName> = [ParamNames<PathOf<R>>] extends [never]
	? Routes[R] extends { body: z.ZodType }
		? [input: RouteInput<R>]
		: [input?: RouteInput<R>]
	: [input: RouteInput<R>];

type Answers<R extends RouteName> = Routes[R]["answers"];
type JsonOf<A> = A extends { json: infer S extends z.ZodType }
	? z.output<S>
	: A extends { empty: true }
		? undefined
		: never;
type FrameOf<A> = A extends { sse: infer S extends z.ZodType } ? z.output<S> : never;

/** What a successful call of `R` answers as JSON (undefined for a 204). */
export type RouteAnswer<R extends RouteName> = { [S in keyof Answers<R>]: JsonOf<Answers<R>[S]> }[keyof Answers<R>];
/** The data of each frame of `R`'s event stream. */
export type RouteFrame<R extends RouteName> = { [S in keyof Answers<R>]: FrameOf<Answers<R>[S]> }[keyof Answers<R>];

/** The routes that answer JSON or nothing (`call`), and those that answer an event stream (`stream`). */
export type JsonRoute = { [R in RouteName]: [RouteAnswer<R>] extends [never] ? never : R }[RouteName];
export type StreamRoute = { [R in RouteName]: [RouteFrame<R>] extends [never] ? never : R }[RouteName];
