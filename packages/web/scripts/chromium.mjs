// How every browser of the web app's tests, benchmark and screenshots is started: Debian's
// Chromium, never a downloaded build (`.ci/run` installs it when missing), with these flags.
export const CHROMIUM = "/usr/bin/chromium";
export const CHROMIUM_ARGS = [
	"--no-sandbox",
	"--disable-gpu",
	"--disable-quic",
	"--no-first-run",
	"--disable-background-networking",
	"--disable-component-update",
	"--disable-sync",
];
