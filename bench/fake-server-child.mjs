// A fake provider in its own process, so the measured process only reads the stream.
import { FakeProviderServer } from "@omniloop/core/testing";

const deltas = Number(process.argv[2] ?? 100_000);
const server = await FakeProviderServer.start();
const text = Array.from({ length: deltas }, (_, i) => `w${i % 10}x `);
const reply = () => ({ text, usage: { input: 10, output: deltas } });
// Plenty of replies for every run of every reader.
for (let i = 0; i < 64; i++) server.enqueue(reply);
process.stdout.write(`${server.url}\n`);
process.on("SIGTERM", () => server.close().then(() => process.exit(0)));
