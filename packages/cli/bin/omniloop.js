#!/usr/bin/env node
// The installed command. It is committed (and executable) so npm links it at `npm ci` time,
// before `npm run build` has made dist/; the CLI itself is the built dist/main.js.
import "../dist/main.js";
