// The client side of bench/server/start-cost.mjs --client-process and of run.mjs, in a process of its own: the
// same requests bench-server.mjs sends (Sessions made one by one, Tasks started 50 in flight),
// driven over IPC, so the server's process pays none of fetch's CPU.
//   forked by remoteClient (bench-server.mjs) with the server's origin and token
import { clientOf } from "./bench-server.mjs";

const [origin, token] = process.argv.slice(2);
const client = clientOf(origin, token);

process.on("message", async (message) => {
	if (message.kind === "create") process.send({ kind: "created", ids: await client.createSessions(message.count) });
	else if (message.kind === "start") {
		// `big`: the index of a Session whose prompt is "big" (bench/server/run.mjs's stalled viewer's).
		await client.startTasks(message.ids, { textOf: (index) => (index === message.big ? "big" : "go") });
		process.send({ kind: "started" });
	} else if (message.kind === "stop") process.disconnect();
});
