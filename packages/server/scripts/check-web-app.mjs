// `npm pack` of the server (its prepack): the package serves the web app from its `web/` folder,
// which `npm run build` fills (packages/web builds into it). A package without it would serve
// no app, so packing stops here instead.
import { existsSync } from "node:fs";

if (!existsSync(new URL("../web/index.html", import.meta.url))) {
	process.stderr.write(
		"@omniloop/server: web/index.html is missing: build the web app first (npm run build at the repository's root)\n",
	);
	process.exit(1);
}
