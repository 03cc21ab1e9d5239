/**
 * Passwords written inside connection strings: a variable holding one is a credential whatever
 * it is called (`DATABASE_URL`, `REPORTS_DB`), so it is kept out of the shell's environment and
 * its password is redacted (docs/sandbox.md).
 *
 * The forms:
 * - a URL's user part: `postgres://app:pw@db/x`, `redis://:pw@cache`, `jdbc:mysql://app:pw@db/x`
 *   (the scheme may have colons, the password an unencoded `@`);
 * - Oracle's thin form: `jdbc:oracle:thin:app/pw@//db/x`;
 * - a URL parameter: `?password=pw`, `&sslpassword=pw`, SQL Server's `;password=pw` or `;pwd=pw`
 *   (a `?pwd=` is as often a working directory);
 * - keywords, as ADO.NET and ODBC write them (`Server=db;User Id=app;Password=pw;`) and as libpq
 *   does (`host=db user=app password=pw dbname=x`), quoted or not.
 */
const URL_USER_PART = /^[a-z][a-z0-9+.:-]*:\/\/([^/\s?#]*)@/i;
const ORACLE_THIN = /^jdbc:oracle:[a-z0-9]+:[^/\s@:]+\/([^@\s]+)@/i;
const URL_PASSWORD_PARAMETER = /^[a-z][a-z0-9+.:-]*:\/\/\S*?(?:[?&;](?:ssl)?(?:password|passwd)|;pwd)=([^&;#\s]+)/i;
/** `Password=pw;` among other `Key=value;` pairs (one `;` at least: a lone `password=x` is no connection string). */
const KEYWORD_SEMICOLON = /(?:^|;)\s*(?:password|pwd)\s*=\s*("[^"]*"|'[^']*'|[^;]*)/i;
/** libpq's `password=pw` among other `key=value` words, one of them naming where to connect. */
const KEYWORD_SPACES = /(?:^|\s)password\s*=\s*('(?:[^'\\]|\\.)*'|\S+)/i;
const LIBPQ_PLACE = /(?:^|\s)(?:host|hostaddr|dbname|service)\s*=/i;

export function holdsPassword(value: string): boolean {
	return connectionPasswords(value).length > 0;
}

/** The passwords a connection string carries, as written and decoded (a `.env` or an error may show either). */
export function connectionPasswords(value: string): string[] {
	const written = [
		userPartPassword(value),
		ORACLE_THIN.exec(value)?.[1],
		URL_PASSWORD_PARAMETER.exec(value)?.[1],
		value.includes(";") && value.includes("=") ? unquoted(KEYWORD_SEMICOLON.exec(value)?.[1]) : undefined,
		LIBPQ_PLACE.test(value) ? unquoted(KEYWORD_SPACES.exec(value)?.[1]) : undefined,
	].filter((password): password is string => password !== undefined && password.trim() !== "");
	const found: string[] = [];
	for (const password of new Set(written)) {
		found.push(password);
		const decoded = decodedOrUndefined(password);
		if (decoded !== undefined && decoded !== password && decoded !== "") found.push(decoded);
	}
	return found;
}

/** `user:password` before the host: up to the last `@` of the authority, as URL parsers read it. */
function userPartPassword(value: string): string | undefined {
	const userPart = URL_USER_PART.exec(value)?.[1];
	const colon = userPart?.indexOf(":") ?? -1;
	return userPart === undefined || colon < 0 ? undefined : userPart.slice(colon + 1);
}

function unquoted(value: string | undefined): string | undefined {
	const trimmed = value?.trim();
	if (trimmed === undefined || trimmed.length < 2) return trimmed;
	const quote = trimmed[0];
	if ((quote === '"' || quote === "'") && trimmed.endsWith(quote)) return trimmed.slice(1, -1).replace(/\\(.)/g, "$1");
	return trimmed;
}

function decodedOrUndefined(text: string): string | undefined {
	try {
		return decodeURIComponent(text.replace(/\+/g, " "));
	} catch {
		return undefined;
	}
}
