import { describe, expect, it } from "vitest";
import { connectionPasswords, holdsPassword } from "./connection-passwords.js";

describe("connectionPasswords", () => {
	it("finds the password of each form, as written and decoded", () => {
		const cases: [string, string[]][] = [
			["postgres://app:hunter22@db:5432/app", ["hunter22"]],
			["postgres://app:long-pass@word123@db/x", ["long-pass@word123"]],
			["jdbc:mysql://app:p%40ss@db/reports", ["p%40ss", "p@ss"]],
			["jdbc:oracle:thin:app/tiger-tiger@//db:1521/svc", ["tiger-tiger"]],
			["jdbc:postgresql://db/ledger?user=app&password=s3cret&ssl=true", ["s3cret"]],
			["jdbc:sqlserver://db:1433;databaseName=x;user=app;pwd=s3cret", ["s3cret"]],
			["Server=db;Database=x;User Id=app;Password=s3cret pass;", ["s3cret pass"]],
			['Driver={ODBC};Server=db;Uid=app;Pwd="semi;colon";', ["semi;colon"]],
			["host=db port=5432 user=app password=s3cret dbname=x", ["s3cret"]],
			["host=db user=app password='it\\'s secret' dbname=x", ["it's secret"]],
		];
		for (const [value, passwords] of cases) expect(connectionPasswords(value), value).toEqual(passwords);
	});

	it("takes ordinary values for none: URLs without one, a working directory, a lone key=value", () => {
		for (const value of [
			"https://example.com/path",
			"http://user@proxy:3128",
			"https://search.example/q?passwords=none&page=2",
			"https://app.example/?pwd=/home/me&tab=2",
			"password=x",
			"a=1;b=2",
			"Password=;Server=db",
			"di=01;34:ln=01;36",
		]) {
			expect(holdsPassword(value), value).toBe(false);
		}
	});
});
