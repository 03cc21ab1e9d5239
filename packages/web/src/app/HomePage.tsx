import { NewSessionForm } from "../sidebar/NewSessionForm.js";
import { useAgents } from "./queries.js";

/** The first screen: what this server runs, and a new Session. */
export function HomePage() {
	const agents = useAgents();
	return (
		<section className="home" aria-labelledby="home-title">
			<h1 id="home-title">omniloop</h1>
			<p className="muted">
				An agent at work in a folder: it streams, asks before it changes things, and you can steer it.
			</p>
			{agents.data?.demo === true ? (
				<p className="demo-note" role="note">
					<strong>Offline demo.</strong> {agents.data.notice}
				</p>
			) : null}
			<NewSessionForm />
		</section>
	);
}
